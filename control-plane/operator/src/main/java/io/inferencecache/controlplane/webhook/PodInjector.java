package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.CacheType;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationMode;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /mutate--v1-pod} (failurePolicy Ignore): wires an engine pod to the one CacheBackend whose
 * cache-domain selector matches it. The only refusal is a pod that matches two backends; every
 * other problem admits the pod <em>fail-open</em>: unchanged except that stamps it carries but has
 * not earned ({@code injected-by}, {@code injected-by-uid}, {@code injected-generation}, {@code
 * inject-skipped}) are removed.
 *
 * <p>An injected pod gets, in order: the engine wiring of its adapter (EventsOnly: the engine's ZMQ
 * KV-event publisher on {@code tcp://*:5557} unless it configures one; SGLangHiCache Offload: the
 * hierarchical-cache flags, then {@code engineOverrides}; typed LMCache Offload with topology
 * PodLocal: the multiprocess connector and its {@code lmcache-mp-server} native sidecar, see {@link
 * LMCacheMPInjection}), the {@code kvevent-subscriber} sidecar (when the controller has a sidecar
 * image and the backend a modelID, and the pod has no container of that name), and the three
 * stamps. An EventsOnly pod that gets no sidecar gets nothing. Typed LMCache backends with topology
 * NodeLocal are not wired by this release: their pods are admitted fail-open, as are pods whose
 * template conflicts with the wiring (another value for an owned flag or env, a foreign {@code
 * /dev/shm} mount, a taken container or volume name), Managed backends whose Redis endpoint is not
 * published yet, and every typed LMCache pod when the API server is older than Kubernetes 1.29 (no
 * native sidecars, {@link NativeSidecars}).
 */
public final class PodInjector implements AdmissionHandler {
  private static final Logger LOG = LoggerFactory.getLogger(PodInjector.class);

  static final String INJECTED_BY = PodStamps.INJECTED_BY;
  static final String INJECTED_BY_UID = PodStamps.INJECTED_BY_UID;
  static final String INJECTED_GENERATION = PodStamps.INJECTED_GENERATION;
  static final String INJECT_SKIPPED = PodStamps.INJECT_SKIPPED;
  static final String SKIPPED_BY_ANNOTATION = "skip-inject-annotation";

  /** The engines' KV-event publisher, bound where the sidecar's {@code --engine-endpoint} reads. */
  static final String VLLM_KV_EVENTS =
      "{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\","
          + "\"topic\":\"kv-events\"}";

  static final String SGLANG_KV_EVENTS =
      "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\",\"topic\":\"kv-events\"}";

  private final NamespaceLister<CacheBackend> backends;
  private final SubscriberSidecar sidecar;
  private final NativeSidecars nativeSidecars;

  /**
   * An injector for a cluster known to run native sidecars.
   *
   * @param backends live lister of CacheBackends; null admits every pod fail-open
   * @param sidecar the sidecar to attach, or null (no {@code --kvevent-subscriber-image})
   */
  public PodInjector(
      final NamespaceLister<CacheBackend> backends, final SubscriberSidecar sidecar) {
    this(backends, sidecar, NativeSidecars.ASSUMED);
  }

  /**
   * @param nativeSidecars whether the API server accepts the LMCache server's native sidecar
   */
  PodInjector(
      final NamespaceLister<CacheBackend> backends,
      final SubscriberSidecar sidecar,
      final NativeSidecars nativeSidecars) {
    this.backends = backends;
    this.sidecar = sidecar;
    this.nativeSidecars = nativeSidecars;
  }

  @Override
  public AdmissionResponse handle(final AdmissionRequest request) {
    final ObjectNode original = request.object();
    if (request.operation().isEmpty()
        || !"CREATE".equals(request.operation())
        || !request.group().isEmpty()
        || !"Pod".equals(request.kind())
        || original == null
        || !original.path("metadata").isObject()
        || !original.path("spec").isObject()) {
      return AdmissionResponse.allow();
    }
    final ObjectNode pod = original.deepCopy();
    final ObjectNode meta = (ObjectNode) pod.get("metadata");
    final String namespace =
        meta.path("namespace").asText("").isEmpty()
            ? request.namespace()
            : meta.path("namespace").asText();
    final Map<String, String> annotations = strings(meta.get("annotations"));
    if (PodStamps.optsOut(annotations.get(PodStamps.SKIP_INJECT))) {
      final ObjectNode a = meta.withObjectProperty("annotations");
      a.remove(List.of(INJECTED_BY, INJECTED_BY_UID, INJECTED_GENERATION));
      a.put(INJECT_SKIPPED, SKIPPED_BY_ANNOTATION);
      return AdmissionResponse.patch(JsonPatch.diff(original, pod));
    }
    if (backends == null) {
      return failOpen(original, namespace, "no CacheBackend reader");
    }
    final List<CacheBackend> candidates = new ArrayList<>();
    try {
      final Map<String, String> labels = strings(meta.get("labels"));
      for (final CacheBackend b : backends.list(namespace)) {
        final Map<String, String> selector =
            b.getSpec() == null ? Map.of() : CacheBackendRules.matchLabels(b.getSpec());
        if (!selector.isEmpty() && labels.entrySet().containsAll(selector.entrySet())) {
          candidates.add(b);
        }
      }
    } catch (Exception e) {
      return failOpen(original, namespace, "cannot list CacheBackends: " + e.getMessage());
    }
    candidates.sort(Comparator.comparing(PodInjector::name));
    if (candidates.size() > 1) {
      final List<String> names = candidates.stream().map(PodInjector::name).toList();
      return AdmissionResponse.denied(
          "Pod labels match multiple CacheBackends in namespace \""
              + namespace
              + "\" ("
              + String.join(", ", names)
              + "); engine admission requires exactly one CacheBackend owner");
    }
    if (candidates.isEmpty()) {
      return failOpen(original, namespace, null);
    }
    final CacheBackend backend = candidates.get(0);
    final CacheBackend.Spec spec = backend.getSpec();
    final Optional<RuntimeAdapter> found = RuntimeAdapter.select(spec);
    if (found.isEmpty()) {
      return failOpen(original, namespace, "no engine adapter for CacheBackend " + name(backend));
    }
    final RuntimeAdapter adapter = found.get();
    final boolean eventsOnly = CacheBackendRules.effectiveMode(spec) == IntegrationMode.EVENTS_ONLY;
    final ObjectNode podSpec = (ObjectNode) pod.get("spec");
    final EngineContainer engine = EngineContainer.find(podSpec, adapter);
    try {
      wireEngine(backend, adapter, eventsOnly, pod, engine);
    } catch (EngineContainer.InjectionException e) {
      return failOpen(original, namespace, e.getMessage());
    }
    if (engine != null) {
      engine.write();
    }
    final boolean appended = appendSidecar(podSpec, spec, adapter, eventsOnly, engine);
    if (eventsOnly && !appended) {
      return failOpen(original, namespace, null);
    }
    final ObjectNode a = meta.withObjectProperty("annotations");
    a.put(INJECTED_BY, namespace + "/" + name(backend));
    a.put(INJECTED_BY_UID, String.valueOf(backend.getMetadata().getUid()));
    final Long generation = backend.getMetadata().getGeneration();
    a.put(INJECTED_GENERATION, String.valueOf(generation == null ? 0 : generation));
    a.remove(INJECT_SKIPPED);
    return AdmissionResponse.patch(JsonPatch.diff(original, pod));
  }

  /** The adapter's engine changes; an exception means none of them apply. */
  private void wireEngine(
      final CacheBackend backend,
      final RuntimeAdapter adapter,
      final boolean eventsOnly,
      final ObjectNode pod,
      final EngineContainer engine)
      throws EngineContainer.InjectionException {
    final CacheBackend.Spec spec = backend.getSpec();
    final String events = "vllm".equals(adapter.runtimeId()) ? VLLM_KV_EVENTS : SGLANG_KV_EVENTS;
    if (eventsOnly) {
      if (engine != null) {
        engine.addArgIfAbsent("--kv-events-config", events);
      }
      return;
    }
    if (adapter.type() != CacheType.SGLANG_HICACHE) {
      final String refusal = nativeSidecars.refusal();
      if (refusal != null) {
        throw new EngineContainer.InjectionException(refusal);
      }
      LMCacheMPInjection.apply(backend, adapter, pod, engine);
      return;
    }
    if (spec.remoteStorage != null) {
      throw new EngineContainer.InjectionException("SGLangHiCache supports no remoteStorage");
    }
    if (engine == null) {
      throw new EngineContainer.InjectionException(
          "no engine container (named " + adapter.engineContainer() + ", or the only container)");
    }
    final CacheBackend.HiCache h = spec.hiCache;
    if (h == null) {
      throw new EngineContainer.InjectionException("CacheBackend has no hiCache");
    }
    engine.forbidArg("--enable-lmcache", "LMCache and HiCache exclude each other");
    engine.forbidArg("--lmcache-config-file", "LMCache and HiCache exclude each other");
    engine.requireArg("--enable-hierarchical-cache", null);
    if (h.sizeGB != null) {
      engine.requireArg("--hicache-size", String.valueOf(h.sizeGB));
    } else {
      engine.requireArg("--hicache-ratio", h.ratio);
    }
    if (h.writePolicy != null) {
      engine.requireArg("--hicache-write-policy", serialized(h.writePolicy));
    }
    if (h.ioBackend != null) {
      engine.requireArg("--hicache-io-backend", serialized(h.ioBackend));
    }
    if (h.memoryLayout != null) {
      engine.requireArg("--hicache-mem-layout", serialized(h.memoryLayout));
    }
    engine.requireArg("--enable-metrics", null);
    engine.addArgIfAbsent("--kv-events-config", events);
    engine.applyOverrides(spec.integration == null ? null : spec.integration.engineOverrides);
  }

  private boolean appendSidecar(
      final ObjectNode podSpec,
      final CacheBackend.Spec spec,
      final RuntimeAdapter adapter,
      final boolean eventsOnly,
      final EngineContainer engine) {
    final String model = spec.observation == null ? null : spec.observation.modelID;
    if (sidecar == null || model == null || model.isEmpty()) {
      return false;
    }
    final JsonNode containers = podSpec.get("containers");
    if (containers == null || !containers.isArray()) {
      return false;
    }
    for (final JsonNode c : containers) {
      if (SubscriberSidecar.NAME.equals(c.path("name").asText(null))) {
        return false;
      }
    }
    try {
      final int port = engine == null ? adapter.defaultPort() : engine.port(adapter.defaultPort());
      ((ArrayNode) containers).add(sidecar.render(model, adapter.runtimeId(), port, eventsOnly));
      return true;
    } catch (RuntimeException e) {
      LOG.warn("kvevent-subscriber sidecar not rendered: {}", e.toString());
      return false;
    }
  }

  /** Admits the pod as it came, less any stamp it was not given here. */
  private static AdmissionResponse failOpen(
      final ObjectNode original, final String namespace, final String why) {
    if (why != null) {
      LOG.info(
          "pod {}/{} admitted without injection: {}",
          namespace,
          original
              .path("metadata")
              .path("name")
              .asText(original.path("metadata").path("generateName").asText("")),
          why);
    }
    final ObjectNode pod = original.deepCopy();
    final JsonNode a = pod.path("metadata").get("annotations");
    if (a instanceof ObjectNode annotations) {
      annotations.remove(
          List.of(INJECTED_BY, INJECTED_BY_UID, INJECTED_GENERATION, INJECT_SKIPPED));
    }
    return AdmissionResponse.patch(JsonPatch.diff(original, pod));
  }

  private static String serialized(final Enum<?> value) {
    try {
      final com.google.gson.annotations.SerializedName n =
          value
              .getDeclaringClass()
              .getField(value.name())
              .getAnnotation(com.google.gson.annotations.SerializedName.class);
      return n == null ? value.name() : n.value();
    } catch (NoSuchFieldException e) {
      return value.name();
    }
  }

  private static String name(final CacheBackend b) {
    return b.getMetadata() == null ? "" : String.valueOf(b.getMetadata().getName());
  }

  private static Map<String, String> strings(final JsonNode node) {
    final Map<String, String> out = new java.util.HashMap<>();
    if (node != null && node.isObject()) {
      for (final Map.Entry<String, JsonNode> f : node.properties()) {
        if (f.getValue().isTextual()) {
          out.put(f.getKey(), f.getValue().textValue());
        }
      }
    }
    return out;
  }
}
