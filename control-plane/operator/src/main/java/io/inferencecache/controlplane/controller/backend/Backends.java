package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The names, annotations and effective values a CacheBackend is read through (read-time fallbacks:
 * type LMCache, mode Offload, failOpen true, firstEventTimeout 5m).
 */
final class Backends {
  static final String DOMAIN_LABEL = "inferencecache.io/cache-domain";
  static final String REQUIRE_KV_EVENTS = "inferencecache.io/require-kv-events";
  static final String SKIP_PROBE = "inferencecache.io/skip-functional-probe";
  static final String INJECTED_BY = PodStamps.INJECTED_BY;
  static final String INJECTED_BY_UID = PodStamps.INJECTED_BY_UID;
  static final String SKIP_INJECT = PodStamps.SKIP_INJECT;
  static final String INJECT_SKIPPED = PodStamps.INJECT_SKIPPED;
  static final String SKIPPED_BY_ANNOTATION = "skip-inject-annotation";
  static final Duration DEFAULT_FIRST_EVENT_TIMEOUT = Duration.ofMinutes(5);

  private Backends() {}

  static CacheBackend.Spec spec(final CacheBackend cr) {
    return cr.getSpec() == null ? new CacheBackend.Spec() : cr.getSpec();
  }

  static CacheBackend.CacheType type(final CacheBackend cr) {
    final CacheBackend.CacheType t = spec(cr).type;
    return t == null ? CacheBackend.CacheType.LMCACHE : t;
  }

  /** The raw {@code spec.type} as written ({@code null} when absent). */
  static String rawType(final CacheBackend cr) {
    final CacheBackend.CacheType t = spec(cr).type;
    if (t == null) {
      return null;
    }
    return t == CacheBackend.CacheType.LMCACHE ? "LMCache" : "SGLangHiCache";
  }

  static boolean eventsOnly(final CacheBackend cr) {
    final CacheBackend.Integration i = spec(cr).integration;
    return i != null && i.mode == CacheBackend.IntegrationMode.EVENTS_ONLY;
  }

  static boolean failOpen(final CacheBackend cr) {
    final CacheBackend.Integration i = spec(cr).integration;
    return i == null || i.failOpen == null || i.failOpen;
  }

  /** {@code vllm} or {@code sglang} ({@code vllm} when the runtime is unset). */
  static String hashScheme(final CacheBackend cr) {
    final CacheBackend.EngineRuntime r = spec(cr).runtime;
    return r == CacheBackend.EngineRuntime.SGLANG ? "sglang" : "vllm";
  }

  /** {@code observation.firstEventTimeout}; absent, unparsable or not positive reads as 5m. */
  static Duration firstEventTimeout(final CacheBackend cr) {
    final CacheBackend.Observation o = spec(cr).observation;
    if (o == null || o.firstEventTimeout == null || o.firstEventTimeout.isBlank()) {
      return DEFAULT_FIRST_EVENT_TIMEOUT;
    }
    try {
      final Duration d = GoDuration.parse(o.firstEventTimeout.strip());
      return d.isZero() || d.isNegative() ? DEFAULT_FIRST_EVENT_TIMEOUT : d;
    } catch (IllegalArgumentException e) {
      return DEFAULT_FIRST_EVENT_TIMEOUT;
    }
  }

  /** The selector's labels, sorted; empty when there is no selector. */
  static Map<String, String> selector(final CacheBackend cr) {
    final CacheBackend.EngineSelector s = spec(cr).engineSelector;
    return s == null || s.matchLabels == null ? Map.of() : new TreeMap<>(s.matchLabels);
  }

  /** {@code k=v,k2=v2} for a label selector query. */
  static String labelSelector(final Map<String, String> labels) {
    final StringBuilder out = new StringBuilder();
    for (final Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(e.getKey()).append('=').append(e.getValue());
    }
    return out.toString();
  }

  static String annotation(final CacheBackend cr, final String key) {
    final Map<String, String> a = cr.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  /** The controller owner reference children carry (garbage-collected with the CR). */
  static V1OwnerReference owner(final CacheBackend cr) {
    return new V1OwnerReference()
        .apiVersion(CacheBackend.API_VERSION)
        .kind("CacheBackend")
        .name(cr.getMetadata().getName())
        .uid(cr.getMetadata().getUid())
        .controller(true)
        .blockOwnerDeletion(true);
  }

  static String lower(final String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
