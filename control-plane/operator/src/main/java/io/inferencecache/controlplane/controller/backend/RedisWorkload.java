package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStrategy;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1ExecAction;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1TCPSocketAction;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Managed Redis L2 of a CacheBackend: a one-replica Deployment and a ClusterIP Service, both
 * named after the CR, in its namespace, controller-owned by it. Rendering is pure; {@link
 * OwnedWorkload} applies it.
 */
final class RedisWorkload {
  static final String CONTAINER = "redis-l2";
  static final String PORT_NAME = "redis";
  static final int PORT = 6379;
  static final String DEFAULT_IMAGE = "docker.io/library/redis:7.4-alpine";
  static final Quantity DEFAULT_REQUEST = Quantity.fromString("4Gi");
  static final Quantity DEFAULT_LIMIT = Quantity.fromString("8Gi");
  static final String MANAGED_BY = "inference-cache-controller";

  private RedisWorkload() {}

  /** A spec the controller cannot render (the condition/reconcile error carries the message). */
  static final class RenderException extends Exception {
    private static final long serialVersionUID = 1L;

    RenderException(final String message) {
      super(message);
    }
  }

  /** The selector labels of the Deployment and Service. */
  static Map<String, String> selectorLabels(final CacheBackend cr) {
    final Map<String, String> l = new LinkedHashMap<>();
    l.put("app.kubernetes.io/name", "cachebackend");
    l.put("app.kubernetes.io/instance", cr.getMetadata().getName());
    l.put("app.kubernetes.io/managed-by", MANAGED_BY);
    return l;
  }

  static Map<String, String> objectLabels(final CacheBackend cr) {
    final Map<String, String> l = selectorLabels(cr);
    final String type = Backends.rawType(cr);
    if (type != null) {
      l.put("inferencecache.io/backend-type", type);
    }
    return l;
  }

  private static CacheBackend.Redis redis(final CacheBackend cr) {
    final CacheBackend.RemoteStorage rs = Backends.spec(cr).remoteStorage;
    return rs == null || rs.redis == null ? new CacheBackend.Redis() : rs.redis;
  }

  static V1ResourceRequirements resources(final CacheBackend cr) {
    final V1ResourceRequirements r = redis(cr).resources;
    if (r != null) {
      return r;
    }
    return new V1ResourceRequirements()
        .putRequestsItem("memory", DEFAULT_REQUEST)
        .putLimitsItem("memory", DEFAULT_LIMIT);
  }

  /**
   * Redis {@code --maxmemory}: {@code limit - limit / 5} in integer bytes, the memory limit (8Gi
   * without one) rounded up to a whole byte first. Integer division leaves the cap one byte above
   * {@code floor(0.8 * limit)} unless the limit is a multiple of 5 (8Gi gives 6871947674). A limit
   * beyond {@code Long.MAX_VALUE} bytes counts as {@code Long.MAX_VALUE}.
   */
  static long maxMemoryBytes(final V1ResourceRequirements r) {
    final Quantity limit = r.getLimits() == null ? null : r.getLimits().get("memory");
    final BigDecimal bytes =
        (limit == null ? DEFAULT_LIMIT : limit).getNumber().setScale(0, RoundingMode.CEILING);
    final long whole =
        bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0
            ? Long.MAX_VALUE
            : bytes.longValueExact();
    return whole - whole / 5;
  }

  static V1Container container(final CacheBackend cr) throws RenderException {
    final CacheBackend.Redis redis = redis(cr);
    final V1ResourceRequirements resources = resources(cr);
    final List<String> args = new ArrayList<>();
    args.add("redis-server");
    args.add("--save");
    args.add("");
    args.add("--appendonly");
    args.add("no");
    args.add("--protected-mode");
    args.add("no");
    args.add("--maxmemory");
    args.add(Long.toString(maxMemoryBytes(resources)));
    args.add("--maxmemory-policy");
    args.add("allkeys-lru");
    final V1Container c =
        new V1Container()
            .name(CONTAINER)
            .image(redis.image == null || redis.image.isBlank() ? DEFAULT_IMAGE : redis.image)
            .imagePullPolicy("IfNotPresent")
            .addPortsItem(new V1ContainerPort().name(PORT_NAME).containerPort(PORT).protocol("TCP"))
            .resources(resources);
    final V1Probe readiness =
        new V1Probe()
            .initialDelaySeconds(3)
            .periodSeconds(10)
            .failureThreshold(6)
            .successThreshold(1)
            .timeoutSeconds(1);
    final CacheBackend.RedisAuthentication auth = redis.authentication;
    if (auth != null && auth.username != null) {
      throw new RenderException(
          "spec.remoteStorage.redis.authentication.username: a Managed Redis has no users; remove"
              + " it or use ownership External");
    }
    if (auth != null && auth.password != null) {
      final V1EnvVarSource secret = new V1EnvVarSource().secretKeyRef(auth.password);
      c.addEnvItem(new V1EnvVar().name("REDIS_PASSWORD").valueFrom(secret));
      c.addEnvItem(new V1EnvVar().name("REDISCLI_AUTH").valueFrom(secret));
      args.add("--requirepass");
      args.add("$(REDIS_PASSWORD)");
      readiness.exec(new V1ExecAction().addCommandItem("redis-cli").addCommandItem("ping"));
      readiness.timeoutSeconds(2);
    } else {
      readiness.tcpSocket(new V1TCPSocketAction().port(new IntOrString(PORT_NAME)));
    }
    return c.args(args).readinessProbe(readiness);
  }

  /** The pod spec: the Redis container, scheduler defaults, then the workload overrides. */
  static V1PodSpec podSpec(final CacheBackend cr) throws RenderException {
    final V1PodSpec pod =
        new V1PodSpec()
            .addContainersItem(container(cr))
            .schedulerName("default-scheduler")
            .terminationGracePeriodSeconds(30L);
    final CacheBackend.RemoteStorage rs = Backends.spec(cr).remoteStorage;
    final CacheBackend.ManagedWorkload w = rs == null ? null : rs.workload;
    if (w != null) {
      pod.nodeSelector(w.nodeSelector)
          .affinity(w.affinity)
          .tolerations(w.tolerations)
          .topologySpreadConstraints(w.topologySpreadConstraints)
          .imagePullSecrets(w.imagePullSecrets)
          .serviceAccountName(w.serviceAccountName)
          .securityContext(w.securityContext)
          .priorityClassName(w.priorityClassName)
          .runtimeClassName(w.runtimeClassName);
      if (w.schedulerName != null && !w.schedulerName.isEmpty()) {
        pod.schedulerName(w.schedulerName);
      }
      if (w.terminationGracePeriodSeconds != null) {
        pod.terminationGracePeriodSeconds(w.terminationGracePeriodSeconds);
      }
    }
    return pod;
  }

  static V1Deployment deployment(final CacheBackend cr) throws RenderException {
    return new V1Deployment()
        .apiVersion("apps/v1")
        .kind("Deployment")
        .metadata(meta(cr))
        .spec(
            new V1DeploymentSpec()
                .replicas(1)
                .selector(new V1LabelSelector().matchLabels(selectorLabels(cr)))
                .strategy(new V1DeploymentStrategy().type("RollingUpdate"))
                .template(
                    new V1PodTemplateSpec()
                        .metadata(new V1ObjectMeta().labels(objectLabels(cr)))
                        .spec(podSpec(cr))));
  }

  static V1Service service(final CacheBackend cr) {
    return new V1Service()
        .apiVersion("v1")
        .kind("Service")
        .metadata(meta(cr))
        .spec(
            new V1ServiceSpec()
                .type("ClusterIP")
                .selector(selectorLabels(cr))
                .addPortsItem(
                    new V1ServicePort()
                        .name(PORT_NAME)
                        .port(PORT)
                        .protocol("TCP")
                        .targetPort(new IntOrString(PORT_NAME))));
  }

  private static V1ObjectMeta meta(final CacheBackend cr) {
    return new V1ObjectMeta()
        .name(cr.getMetadata().getName())
        .namespace(cr.getMetadata().getNamespace())
        .labels(objectLabels(cr))
        .addOwnerReferencesItem(Backends.owner(cr));
  }

  /** {@code <svc>.<ns>.svc.cluster.local:<port>}. */
  static String endpoint(final V1Service svc) {
    final List<V1ServicePort> ports = svc.getSpec() == null ? null : svc.getSpec().getPorts();
    final int port = ports == null || ports.isEmpty() ? PORT : ports.get(0).getPort();
    return svc.getMetadata().getName()
        + "."
        + svc.getMetadata().getNamespace()
        + ".svc.cluster.local:"
        + port;
  }
}
