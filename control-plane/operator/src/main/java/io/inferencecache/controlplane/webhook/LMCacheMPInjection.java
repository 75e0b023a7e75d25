package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.Ownership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import java.io.IOException;
import java.math.BigDecimal;

/**
 * The LMCache multiprocess ("MP") wiring of a typed LMCache Offload pod with topology PodLocal: the
 * engine's connector flags and environment, and one MP server per pod as the native sidecar {@code
 * lmcache-mp-server} (an init container with {@code restartPolicy: Always}, so it starts before the
 * engine and is ready-probed on {@code /healthcheck}). Engine and server share a memory {@code
 * emptyDir} at {@code /dev/shm}; an SGLang engine reads its client configuration from a file the
 * pod's own annotation projects (downward API), so no shell runs in the server image.
 *
 * <p>Every conflict throws {@link EngineContainer.InjectionException} before the pod is admitted,
 * and the pod is then admitted unchanged (the caller works on a copy).
 */
final class LMCacheMPInjection {
  static final String SERVER = "lmcache-mp-server";
  static final String SHM_VOLUME = "lmcache-mp-shm";
  static final String CONFIG_VOLUME = "lmcache-mp-config";
  static final String SHM_PATH = "/dev/shm";
  static final String CONFIG_DIR = "/var/run/inference-cache/lmcache";
  static final String CONFIG_FILE = CONFIG_DIR + "/client.yaml";
  static final String CLIENT_CONFIG_ANNOTATION = "inferencecache.io/lmcache-mp-client-config";
  static final String METRICS_LABEL = "inferencecache.io/lmcache-mp-metrics";
  static final int HTTP_PORT = 8080;
  static final int DEFAULT_CHUNK_SIZE = 256;
  static final String HEALTH_PATH = "/healthcheck";

  private static final BigDecimal GIB = BigDecimal.valueOf(1L << 30);
  private static final com.google.gson.Gson GSON = JSON.getGson();

  private LMCacheMPInjection() {}

  /**
   * Wires {@code pod} (a copy) for {@code backend}'s typed LMCache topology.
   *
   * @param engine the engine container, or null when the pod has none the adapter can name
   */
  static void apply(
      final CacheBackend backend,
      final RuntimeAdapter adapter,
      final ObjectNode pod,
      final EngineContainer engine)
      throws EngineContainer.InjectionException {
    final CacheBackend.Spec spec = backend.getSpec();
    if (spec.lmCache == null || spec.lmCache.topology == null) {
      throw new EngineContainer.InjectionException(
          "CacheBackend has no spec.lmCache.topology (PodLocal)");
    }
    if (spec.lmCache.topology == CacheBackend.Topology.NODE_LOCAL) {
      throw new EngineContainer.InjectionException(
          "lmCache.topology NodeLocal (shared server pods per node) is not supported by this"
              + " release; use topology PodLocal");
    }
    final CacheBackend.PodLocalServer server =
        spec.lmCache.podLocal == null ? null : spec.lmCache.podLocal.server;
    if (server == null
        || server.image == null
        || server.image.isBlank()
        || server.port == null
        || server.l1Capacity == null
        || server.maxWorkers == null) {
      throw new EngineContainer.InjectionException(
          "CacheBackend has no complete spec.lmCache.podLocal.server (image, port, l1Capacity,"
              + " maxWorkers)");
    }
    if (server.port == HTTP_PORT || server.port < 1 || server.port > 65535) {
      throw new EngineContainer.InjectionException(
          "spec.lmCache.podLocal.server.port " + server.port + " is not usable");
    }
    if (engine == null) {
      throw new EngineContainer.InjectionException(
          "no engine container (named " + adapter.engineContainer() + ", or the only container)");
    }
    final RemoteBinding remote = RemoteBinding.of(backend);
    final ObjectNode podSpec = (ObjectNode) pod.get("spec");
    final int chunk =
        spec.lmCache.chunkSizeTokens == null ? DEFAULT_CHUNK_SIZE : spec.lmCache.chunkSizeTokens;
    final boolean sglang = "sglang".equals(adapter.runtimeId());
    checkFreeNames(podSpec);
    final String failOpen =
        String.valueOf(
            spec.integration == null
                || spec.integration.failOpen == null
                || spec.integration.failOpen);
    if (sglang) {
      engine.forbidArg("--enable-hierarchical-cache", "LMCache and HiCache exclude each other");
      engine.requireArg("--enable-lmcache", null);
      engine.requireArg("--lmcache-config-file", CONFIG_FILE);
      engine.requireArg("--enable-metrics", null);
      engine.requireEnv("LMCACHE_USE_EXPERIMENTAL", "True");
      engine.requireEnv("INFERENCECACHE_FAIL_OPEN", failOpen);
      engine.addArgIfAbsent("--kv-events-config", PodInjector.SGLANG_KV_EVENTS);
    } else {
      engine.requireArg("--kv-transfer-config", vllmConnector(server.port));
      engine.requireArg("--disable-hybrid-kv-cache-manager", null);
      engine.requireEnv("PYTHONHASHSEED", "0");
      engine.requireEnv("INFERENCECACHE_FAIL_OPEN", failOpen);
      engine.addArgIfAbsent("--kv-events-config", PodInjector.VLLM_KV_EVENTS);
    }
    engine.applyOverrides(spec.integration == null ? null : spec.integration.engineOverrides);

    final ArrayNode volumes = podSpec.withArrayProperty("volumes");
    final String shm = shmVolume(engine, volumes, server.l1Capacity);
    final ObjectNode sidecar = server(server, chunk, remote, shm, sglang);
    if (sglang) {
      if (mountAt(engine.node(), CONFIG_DIR) != null) {
        throw new EngineContainer.InjectionException(
            "engine container already mounts " + CONFIG_DIR + ", the LMCache client config path");
      }
      final ObjectNode meta = (ObjectNode) pod.get("metadata");
      meta.withObjectProperty("annotations")
          .put(
              CLIENT_CONFIG_ANNOTATION,
              "chunk_size: " + chunk + "\nmp_host: \"127.0.0.1\"\nmp_port: " + server.port + "\n");
      final ObjectNode v = volumes.addObject().put("name", CONFIG_VOLUME);
      v.putObject("downwardAPI")
          .putArray("items")
          .addObject()
          .put("path", "client.yaml")
          .putObject("fieldRef")
          .put("fieldPath", "metadata.annotations['" + CLIENT_CONFIG_ANNOTATION + "']");
      engine
          .node()
          .withArrayProperty("volumeMounts")
          .addObject()
          .put("name", CONFIG_VOLUME)
          .put("mountPath", CONFIG_DIR)
          .put("readOnly", true);
    }
    podSpec.withArrayProperty("initContainers").add(sidecar);
    ((ObjectNode) pod.get("metadata")).withObjectProperty("labels").put(METRICS_LABEL, "true");
  }

  /** vLLM's {@code --kv-transfer-config}: the MP connector dialling the pod's own server. */
  static String vllmConnector(final int port) {
    return "{\"kv_connector\":\"LMCacheMPConnector\","
        + "\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\","
        + "\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":"
        + port
        + "}}";
  }

  /** Refuses a pod that already uses a name the injection adds. */
  private static void checkFreeNames(final ObjectNode podSpec)
      throws EngineContainer.InjectionException {
    for (final String list : new String[] {"initContainers", "containers"}) {
      for (final JsonNode c : podSpec.path(list)) {
        if (SERVER.equals(c.path("name").asText(null))) {
          throw new EngineContainer.InjectionException(
              "pod already has a container named " + SERVER + ", the injected MP server's name");
        }
      }
    }
    for (final JsonNode v : podSpec.path("volumes")) {
      final String name = v.path("name").asText("");
      if (SHM_VOLUME.equals(name) || CONFIG_VOLUME.equals(name)) {
        throw new EngineContainer.InjectionException(
            "pod already has a volume named " + name + ", which the injection adds");
      }
    }
  }

  /**
   * The volume engine and server share at {@code /dev/shm}: the engine's own when it is a memory
   * {@code emptyDir}, else a new one sized {@code l1Capacity + 1Gi} and mounted on the engine.
   */
  private static String shmVolume(
      final EngineContainer engine, final ArrayNode volumes, final Quantity l1)
      throws EngineContainer.InjectionException {
    final JsonNode mounted = mountAt(engine.node(), SHM_PATH);
    if (mounted != null) {
      final String name = mounted.path("name").asText("");
      for (final JsonNode v : volumes) {
        if (name.equals(v.path("name").asText(null))
            && "Memory".equals(v.path("emptyDir").path("medium").asText(null))
            && mounted.path("subPath").asText("").isEmpty()) {
          return name;
        }
      }
      throw new EngineContainer.InjectionException(
          "engine container mounts volume "
              + name
              + " at /dev/shm and it is not a whole memory emptyDir the MP server could share");
    }
    final BigDecimal bytes = l1.getNumber().add(GIB);
    final ObjectNode v = volumes.addObject().put("name", SHM_VOLUME);
    v.putObject("emptyDir")
        .put("medium", "Memory")
        .put("sizeLimit", new Quantity(bytes, Quantity.Format.BINARY_SI).toSuffixedString());
    engine
        .node()
        .withArrayProperty("volumeMounts")
        .addObject()
        .put("name", SHM_VOLUME)
        .put("mountPath", SHM_PATH);
    return SHM_VOLUME;
  }

  private static JsonNode mountAt(final ObjectNode container, final String path) {
    for (final JsonNode m : container.path("volumeMounts")) {
      if (path.equals(m.path("mountPath").asText(null))) {
        return m;
      }
    }
    return null;
  }

  /** {@code l1Capacity} in GiB as LMCache's {@code --l1-size-gb} reads it (a plain decimal). */
  static String gib(final Quantity q) {
    return q.getNumber().divide(GIB).stripTrailingZeros().toPlainString();
  }

  private static ObjectNode server(
      final CacheBackend.PodLocalServer s,
      final int chunk,
      final RemoteBinding remote,
      final String shm,
      final boolean sglang) {
    final ObjectNode c = AdmissionRequest.JSON.createObjectNode();
    c.put("name", SERVER)
        .put("image", s.image.strip())
        .put("imagePullPolicy", "IfNotPresent")
        .put("restartPolicy", "Always");
    c.putArray("command").add("lmcache");
    final ArrayNode args = c.putArray("args");
    args.add("server")
        .add("--host")
        .add("127.0.0.1")
        .add("--port")
        .add(String.valueOf(s.port))
        .add("--http-host")
        .add("0.0.0.0")
        .add("--http-port")
        .add(String.valueOf(HTTP_PORT))
        .add("--chunk-size")
        .add(String.valueOf(chunk))
        .add("--l1-size-gb")
        .add(gib(s.l1Capacity))
        .add("--eviction-policy")
        .add("LRU")
        .add("--max-workers")
        .add(String.valueOf(s.maxWorkers));
    if (remote != null) {
      args.add("--l2-adapter").add(remote.adapterJson());
    }
    final ArrayNode env = c.putArray("env");
    env.addObject().put("name", "NVIDIA_VISIBLE_DEVICES").put("value", "all");
    if (remote != null) {
      secretEnv(env, "LMCACHE_RESP_USERNAME", remote.username());
      secretEnv(env, "LMCACHE_RESP_PASSWORD", remote.password());
    }
    final ArrayNode ports = c.putArray("ports");
    ports.addObject().put("name", "lmcache-mp").put("containerPort", s.port).put("protocol", "TCP");
    ports
        .addObject()
        .put("name", "lmcache-http")
        .put("containerPort", HTTP_PORT)
        .put("protocol", "TCP");
    c.set("startupProbe", probe(3, 40));
    c.set("readinessProbe", probe(5, 3));
    c.set("livenessProbe", probe(10, 3));
    if (s.resources != null) {
      c.set("resources", tree(GSON.toJson(s.resources)));
    }
    c.putArray("volumeMounts").addObject().put("name", shm).put("mountPath", SHM_PATH);
    return c;
  }

  private static ObjectNode probe(final int period, final int failures) {
    final ObjectNode p = AdmissionRequest.JSON.createObjectNode();
    p.putObject("httpGet").put("path", HEALTH_PATH).put("port", "lmcache-http");
    p.put("periodSeconds", period).put("failureThreshold", failures).put("timeoutSeconds", 2);
    return p;
  }

  private static void secretEnv(
      final ArrayNode env, final String name, final V1SecretKeySelector key) {
    if (key != null) {
      env.addObject()
          .put("name", name)
          .putObject("valueFrom")
          .set("secretKeyRef", tree(GSON.toJson(key)));
    }
  }

  private static JsonNode tree(final String json) {
    try {
      return AdmissionRequest.JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The Redis tier the MP server writes through: the External endpoint, or the endpoint a Managed
   * backend published in its status; null for a host-only backend.
   */
  record RemoteBinding(
      String host, int port, V1SecretKeySelector username, V1SecretKeySelector password) {

    static RemoteBinding of(final CacheBackend backend) throws EngineContainer.InjectionException {
      final CacheBackend.RemoteStorage rs = backend.getSpec().remoteStorage;
      if (rs == null) {
        return null;
      }
      if (rs.provider != CacheBackend.Provider.REDIS) {
        throw new EngineContainer.InjectionException(
            "spec.remoteStorage.provider " + rs.provider + " has no LMCache binding");
      }
      if (rs.redis != null && (rs.redis.tls != null || rs.redis.database != null)) {
        throw new EngineContainer.InjectionException(
            "the pinned LMCache resp adapter supports neither TLS nor database selection");
      }
      final String endpoint;
      final String field;
      if (rs.ownership == Ownership.EXTERNAL) {
        field = "spec.remoteStorage.endpoint";
        final String e = rs.endpoint == null ? "" : rs.endpoint.strip();
        endpoint = HierarchyRules.hostPortProblem(e) == null ? e : "";
      } else {
        field = "status.remoteStorage.endpoint";
        final CacheBackend.RemoteStorageStatus st =
            backend.getStatus() == null ? null : backend.getStatus().remoteStorage;
        endpoint = st == null || st.endpoint == null ? "" : st.endpoint.strip();
      }
      if (endpoint.isEmpty() || HierarchyRules.hostPortProblem(endpoint) != null) {
        throw new EngineContainer.InjectionException(
            "CacheBackend "
                + field
                + " not usable"
                + (rs.ownership == Ownership.EXTERNAL
                    ? ""
                    : " yet (the controller publishes it once the Managed Redis Service exists)"));
      }
      final int colon = endpoint.lastIndexOf(':');
      String host = endpoint.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      final CacheBackend.RedisAuthentication auth =
          rs.redis == null ? null : rs.redis.authentication;
      return new RemoteBinding(
          host,
          Integer.parseInt(endpoint.substring(colon + 1)),
          auth == null ? null : auth.username,
          auth == null ? null : auth.password);
    }

    /** {@code --l2-adapter}: LMCache's RESP adapter; credentials travel as env, never here. */
    String adapterJson() {
      final ObjectNode a = AdmissionRequest.JSON.createObjectNode();
      a.put("type", "resp").put("host", host).put("port", port);
      return a.toString();
    }
  }
}
