package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStrategy;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Service;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies and deletes the Deployment and Service a Managed CacheBackend owns. Create or update with
 * a conflict retry; an update reconciles only the fields the controller manages (the Redis
 * container's image, pull policy, command, args, env, ports, resources, volume mounts, probes and
 * security context, the pod's scheduling and security fields, the rolling-update strategy) and
 * writes only when one of them differs. An object of that name not controlled by the CR is never
 * touched: {@link NotOwnedException}.
 */
final class OwnedWorkload {
  private static final int ATTEMPTS = 3;
  private final AppsV1Api apps;
  private final CoreV1Api core;

  OwnedWorkload(final ApiClient client) {
    this.apps = new AppsV1Api(client);
    this.core = new CoreV1Api(client);
  }

  /** A child of the CR's name exists but another owner (or none) controls it. */
  static final class NotOwnedException extends Exception {
    private static final long serialVersionUID = 1L;

    NotOwnedException(final String kind, final String ns, final String name) {
      super(
          kind
              + " "
              + ns
              + "/"
              + name
              + " exists and is not controlled by this CacheBackend; rename or delete it");
    }
  }

  static boolean controlledBy(final V1ObjectMeta meta, final CacheBackend cr) {
    if (meta == null || meta.getOwnerReferences() == null) {
      return false;
    }
    for (final V1OwnerReference o : meta.getOwnerReferences()) {
      if (Boolean.TRUE.equals(o.getController())) {
        return cr.getMetadata().getUid().equals(o.getUid());
      }
    }
    return false;
  }

  /** Creates or updates the Deployment; returns the live object after the call. */
  V1Deployment applyDeployment(final CacheBackend cr, final V1Deployment want)
      throws ApiException, NotOwnedException {
    final String ns = cr.getMetadata().getNamespace();
    final String name = cr.getMetadata().getName();
    for (int attempt = 1; ; attempt++) {
      try {
        final V1Deployment live = readDeployment(ns, name);
        if (live == null) {
          return apps.createNamespacedDeployment(ns, want).execute();
        }
        if (!controlledBy(live.getMetadata(), cr)) {
          throw new NotOwnedException("Deployment", ns, name);
        }
        final String before = JSON.serialize(live);
        merge(live, want);
        if (before.equals(JSON.serialize(live))) {
          return live;
        }
        return apps.replaceNamespacedDeployment(name, ns, live).execute();
      } catch (ApiException e) {
        if ((e.getCode() != 409 && e.getCode() != 404) || attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static void merge(final V1Deployment live, final V1Deployment want) {
    live.getMetadata().setLabels(merged(live.getMetadata().getLabels(), want));
    final V1DeploymentStrategy strategy = live.getSpec().getStrategy();
    if (strategy == null || !"RollingUpdate".equals(strategy.getType())) {
      live.getSpec().strategy(new V1DeploymentStrategy().type("RollingUpdate"));
    }
    live.getSpec()
        .getTemplate()
        .getMetadata()
        .setLabels(want.getSpec().getTemplate().getMetadata().getLabels());
    final V1PodSpec pod = live.getSpec().getTemplate().getSpec();
    final V1PodSpec w = want.getSpec().getTemplate().getSpec();
    final V1Container wanted = w.getContainers().get(0);
    V1Container c = null;
    for (final V1Container existing : pod.getContainers()) {
      if (wanted.getName().equals(existing.getName())) {
        c = existing;
      }
    }
    if (c == null) {
      c = new V1Container().name(wanted.getName());
    }
    c.image(wanted.getImage())
        .imagePullPolicy(wanted.getImagePullPolicy())
        .command(wanted.getCommand())
        .args(wanted.getArgs())
        .env(wanted.getEnv())
        .ports(wanted.getPorts())
        .resources(wanted.getResources())
        .volumeMounts(wanted.getVolumeMounts())
        .readinessProbe(wanted.getReadinessProbe())
        .livenessProbe(wanted.getLivenessProbe())
        .securityContext(wanted.getSecurityContext());
    pod.setContainers(new ArrayList<>(List.of(c)));
    pod.nodeSelector(w.getNodeSelector())
        .affinity(w.getAffinity())
        .tolerations(w.getTolerations())
        .topologySpreadConstraints(w.getTopologySpreadConstraints())
        .imagePullSecrets(w.getImagePullSecrets())
        .serviceAccountName(w.getServiceAccountName())
        .securityContext(
            w.getSecurityContext() == null ? new V1PodSecurityContext() : w.getSecurityContext())
        .priorityClassName(w.getPriorityClassName())
        .schedulerName(w.getSchedulerName())
        .runtimeClassName(w.getRuntimeClassName())
        .terminationGracePeriodSeconds(w.getTerminationGracePeriodSeconds());
  }

  private static java.util.Map<String, String> merged(
      final java.util.Map<String, String> live, final V1Deployment want) {
    final java.util.Map<String, String> out =
        live == null ? new java.util.LinkedHashMap<>() : new java.util.LinkedHashMap<>(live);
    out.putAll(want.getMetadata().getLabels());
    return out;
  }

  /** Creates or updates the Service (its ClusterIP kept); returns the live object. */
  V1Service applyService(final CacheBackend cr, final V1Service want)
      throws ApiException, NotOwnedException {
    final String ns = cr.getMetadata().getNamespace();
    final String name = cr.getMetadata().getName();
    for (int attempt = 1; ; attempt++) {
      try {
        final V1Service live = readService(ns, name);
        if (live == null) {
          return core.createNamespacedService(ns, want).execute();
        }
        if (!controlledBy(live.getMetadata(), cr)) {
          throw new NotOwnedException("Service", ns, name);
        }
        final String before = JSON.serialize(live);
        final java.util.Map<String, String> labels =
            live.getMetadata().getLabels() == null
                ? new java.util.LinkedHashMap<>()
                : new java.util.LinkedHashMap<>(live.getMetadata().getLabels());
        labels.putAll(want.getMetadata().getLabels());
        live.getMetadata().setLabels(labels);
        live.getSpec()
            .type(want.getSpec().getType())
            .selector(want.getSpec().getSelector())
            .ports(want.getSpec().getPorts());
        if (before.equals(JSON.serialize(live))) {
          return live;
        }
        return core.replaceNamespacedService(name, ns, live).execute();
      } catch (ApiException e) {
        if ((e.getCode() != 409 && e.getCode() != 404) || attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  V1Deployment readDeployment(final String ns, final String name) throws ApiException {
    try {
      return apps.readNamespacedDeployment(name, ns).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  V1Service readService(final String ns, final String name) throws ApiException {
    try {
      return core.readNamespacedService(name, ns).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  /** Deletes the Deployment and Service of the CR's name when the CR controls them. */
  void deleteOwned(final CacheBackend cr) throws ApiException {
    final String ns = cr.getMetadata().getNamespace();
    final String name = cr.getMetadata().getName();
    final V1Deployment d = readDeployment(ns, name);
    if (d != null && controlledBy(d.getMetadata(), cr)) {
      delete(apps.deleteNamespacedDeployment(name, ns).buildCall(null), "deployment " + name);
    }
    final V1Service s = readService(ns, name);
    if (s != null && controlledBy(s.getMetadata(), cr)) {
      // Not through execute(): the API server answers a Service DELETE with a Status on some
      // versions (1.20) and the Service on others, and the client decodes only the latter.
      delete(core.deleteNamespacedService(name, ns).buildCall(null), "service " + name);
    }
  }

  /** Runs a DELETE; 404 counts as done, any other non-2xx is an {@link ApiException}. */
  private static void delete(final okhttp3.Call call, final String what) throws ApiException {
    try (okhttp3.Response r = call.execute()) {
      if (r.isSuccessful() || r.code() == 404) {
        return;
      }
      final String body = r.body() == null ? "" : r.body().string();
      throw new ApiException(r.code(), "delete " + what + ": " + body.strip());
    } catch (java.io.IOException e) {
      throw new ApiException(e);
    }
  }
}
