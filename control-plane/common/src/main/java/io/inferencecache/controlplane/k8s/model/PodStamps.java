package io.inferencecache.controlplane.k8s.model;

import java.util.Locale;
import java.util.Set;

/**
 * The pod annotations of engine-pod injection: the pod webhook writes the stamps, the CacheBackend
 * reconciler and {@code doctor} read them. A pod is stamped for exactly one CacheBackend.
 */
public final class PodStamps {
  /** {@code namespace/name} of the CacheBackend that injected the pod. */
  public static final String INJECTED_BY = "inferencecache.io/injected-by";

  /** UID of that CacheBackend (a recreated backend of the same name does not own old pods). */
  public static final String INJECTED_BY_UID = "inferencecache.io/injected-by-uid";

  /** The backend's {@code metadata.generation} the pod was injected for. */
  public static final String INJECTED_GENERATION = "inferencecache.io/injected-generation";

  /** Why the webhook skipped the pod (written instead of the stamps). */
  public static final String INJECT_SKIPPED = "inferencecache.io/inject-skipped";

  /** The user's opt-out of injection. */
  public static final String SKIP_INJECT = "inferencecache.io/skip-inject";

  private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");
  private static final Set<String> KEEP = Set.of("no", "off", "disable", "disabled");

  private PodStamps() {}

  /**
   * Whether a {@link #SKIP_INJECT} value opts the pod out of injection. Go's {@code
   * strconv.ParseBool} spellings decide first, case-sensitively ({@code 1 t T TRUE true True} opt
   * out, {@code 0 f F FALSE false False} keep injection); then {@code no}, {@code off}, {@code
   * disable} and {@code disabled} in any case keep injection; any other non-empty value opts out
   * (so {@code "fAlse"} opts out). Absent or empty keeps injection.
   */
  public static boolean optsOut(final String value) {
    if (value == null || value.isEmpty()) {
      return false;
    }
    if (TRUE.contains(value)) {
      return true;
    }
    if (FALSE.contains(value)) {
      return false;
    }
    return !KEEP.contains(value.toLowerCase(Locale.ROOT));
  }
}
