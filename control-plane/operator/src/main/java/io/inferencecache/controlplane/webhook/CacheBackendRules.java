package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.CacheType;
import io.inferencecache.controlplane.k8s.model.CacheBackend.EngineRuntime;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationMode;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The CacheBackend's own admission rules, in the order they run; each adds {@link FieldError}s and
 * never throws. This class holds the engine selector, the integration-mode rules (EventsOnly,
 * SGLang HiCache, role, kernel-check annotation) and the shared readers; the store and LMCache
 * server rules are {@link HierarchyRules}, the resource shapes {@link ResourceRules}, the adapter
 * and engineOverrides checks {@link OverrideRules}. The cross-object rule (one owner per cache
 * domain) lives in {@link CacheBackendValidator}.
 */
final class CacheBackendRules {
  /** The only key an engineSelector may carry. */
  static final String CACHE_DOMAIN = "inferencecache.io/cache-domain";

  /** Annotation selecting the LMCache kernel check mode. */
  static final String KERNEL_CHECK = "inferencecache.io/lmcache-kernel-check";

  private static final Set<String> KERNEL_CHECK_MODES =
      Set.of("", "auto", "report-only", "strict", "off");

  private static final Pattern LABEL_VALUE =
      Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");

  private CacheBackendRules() {}

  /**
   * Every intrinsic rule of {@code backend} in namespace {@code namespace} except the
   * engine-selector rule, which {@link CacheBackendValidator} runs on every create and update.
   *
   * @param rawProvider {@code spec.remoteStorage.provider} as sent (the typed model drops a value
   *     it does not know), or null
   */
  static List<FieldError> all(
      final CacheBackend backend, final String namespace, final String rawProvider) {
    final List<FieldError> e = new ArrayList<>();
    final CacheBackend.Spec spec = backend.getSpec();
    if (spec == null) {
      return e;
    }
    HierarchyRules.cacheHierarchy(spec, rawProvider, e);
    HierarchyRules.lmCacheTopology(spec, e);
    HierarchyRules.unimplementedRedisFeatures(spec, e);
    HierarchyRules.crossNamespaceEndpoint(spec, namespace, e);
    eventsOnly(spec, e);
    hiCache(spec, e);
    kernelCheckAnnotation(backend, e);
    lmCacheRole(spec, e);
    OverrideRules.runtimeAdapter(spec, e);
    OverrideRules.engineOverrides(spec, e);
    return e;
  }

  /**
   * The engine selector: empty, or exactly {@code inferencecache.io/cache-domain} = a label value.
   */
  static void engineSelectorDomain(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec == null) {
      return;
    }
    final Map<String, String> labels = matchLabels(spec);
    if (labels.isEmpty()) {
      return;
    }
    if (labels.size() != 1 || !labels.containsKey(CACHE_DOMAIN)) {
      e.add(
          FieldError.invalid(
              "spec.engineSelector.matchLabels",
              render(labels),
              "must contain exactly one key, " + CACHE_DOMAIN));
      return;
    }
    final String value = labels.get(CACHE_DOMAIN);
    if (value == null
        || value.isEmpty()
        || value.length() > 63
        || !LABEL_VALUE.matcher(value).matches()) {
      e.add(
          FieldError.invalid(
              "spec.engineSelector.matchLabels[" + CACHE_DOMAIN + "]",
              value,
              "must be a non-empty label value (at most 63 characters: alphanumerics, '-', '_' or"
                  + " '.', starting and ending with an alphanumeric)"));
    }
  }

  private static void eventsOnly(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveMode(spec) != IntegrationMode.EVENTS_ONLY) {
      return;
    }
    if (effectiveType(spec) != CacheType.LMCACHE) {
      e.add(
          FieldError.forbidden(
              "spec.integration.mode", "EventsOnly needs type LMCache (or no type)"));
    }
    if (spec.remoteStorage != null) {
      e.add(
          FieldError.forbidden(
              "spec.remoteStorage", "EventsOnly routes on KV events only; it has no store"));
    }
  }

  private static void hiCache(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveType(spec) != CacheType.SGLANG_HICACHE) {
      if (spec.hiCache != null) {
        e.add(
            FieldError.forbidden(
                "spec.hiCache", "hiCache may only be set with type SGLangHiCache"));
      }
      return;
    }
    if (spec.runtime != EngineRuntime.SGLANG) {
      e.add(FieldError.invalid("spec.runtime", spec.runtime, "SGLangHiCache needs runtime SGLang"));
    }
    if (matchLabels(spec).isEmpty()) {
      e.add(
          FieldError.required(
              "spec.engineSelector.matchLabels", "SGLangHiCache configures the selected pods"));
    }
    if (effectiveMode(spec) != IntegrationMode.OFFLOAD) {
      e.add(FieldError.forbidden("spec.integration.mode", "SGLangHiCache supports Offload only"));
    }
    if (spec.integration != null
        && spec.integration.role != null
        && spec.integration.role != IntegrationRole.READ_WRITE) {
      e.add(
          FieldError.notSupported(
              "spec.integration.role",
              roleName(spec.integration.role),
              "supported values: ReadWrite"));
    }
    if (spec.integration != null && Boolean.FALSE.equals(spec.integration.failOpen)) {
      e.add(FieldError.forbidden("spec.integration.failOpen", "SGLangHiCache always fails open"));
    }
    final CacheBackend.HiCache h = spec.hiCache;
    if (h == null) {
      e.add(FieldError.required("spec.hiCache", "type SGLangHiCache needs hiCache"));
      return;
    }
    final boolean hasRatio = h.ratio != null && !h.ratio.isEmpty();
    if ((h.sizeGB != null) == hasRatio) {
      e.add(FieldError.invalid("spec.hiCache", "object", "set exactly one of sizeGB and ratio"));
    }
    if (hasRatio) {
      boolean ok;
      try {
        final double r = Double.parseDouble(h.ratio);
        ok = Double.isFinite(r) && r > 0;
      } catch (NumberFormatException notANumber) {
        ok = false;
      }
      if (!ok) {
        e.add(FieldError.invalid("spec.hiCache.ratio", h.ratio, "must be a finite number > 0"));
      }
    }
  }

  private static void kernelCheckAnnotation(final CacheBackend backend, final List<FieldError> e) {
    final Map<String, String> a =
        backend.getMetadata() == null ? null : backend.getMetadata().getAnnotations();
    final String value = a == null ? null : a.get(KERNEL_CHECK);
    if (value != null && !KERNEL_CHECK_MODES.contains(value)) {
      e.add(
          FieldError.notSupported(
              "metadata.annotations[" + KERNEL_CHECK + "]",
              value,
              "supported values: auto, report-only, strict, off"));
    }
  }

  private static void lmCacheRole(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveType(spec) == CacheType.LMCACHE
        && spec.integration != null
        && spec.integration.role != null
        && spec.integration.role != IntegrationRole.READ_WRITE) {
      e.add(
          FieldError.notSupported(
              "spec.integration.role",
              roleName(spec.integration.role),
              "LMCache supports ReadWrite only"));
    }
  }

  // ---- helpers ----

  static Map<String, String> matchLabels(final CacheBackend.Spec spec) {
    return spec.engineSelector == null || spec.engineSelector.matchLabels == null
        ? Map.of()
        : spec.engineSelector.matchLabels;
  }

  static CacheType effectiveType(final CacheBackend.Spec spec) {
    return spec.type == null ? CacheType.LMCACHE : spec.type;
  }

  static IntegrationMode effectiveMode(final CacheBackend.Spec spec) {
    return spec.integration == null || spec.integration.mode == null
        ? IntegrationMode.OFFLOAD
        : spec.integration.mode;
  }

  static boolean typedLMCache(final CacheBackend.Spec spec) {
    return effectiveType(spec) == CacheType.LMCACHE
        && spec.lmCache != null
        && spec.lmCache.topology != null;
  }

  static String roleName(final IntegrationRole role) {
    return switch (role) {
      case READ_ONLY -> "ReadOnly";
      case WRITE_ONLY -> "WriteOnly";
      case READ_WRITE -> "ReadWrite";
    };
  }

  private static String render(final Map<String, String> labels) {
    return new java.util.TreeMap<>(labels).toString();
  }
}
