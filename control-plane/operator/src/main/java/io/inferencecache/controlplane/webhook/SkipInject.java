package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.PodStamps;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code inferencecache.io/skip-inject} annotation. Go's {@code strconv.ParseBool} spellings
 * decide first, case-sensitively ({@code 1 t T TRUE true True} opt out, {@code 0 f F FALSE false
 * False} keep injection); then {@code no}, {@code off}, {@code disable} and {@code disabled} in any
 * case keep injection; any other non-empty value opts out (so {@code "fAlse"} opts out).
 */
final class SkipInject {
  static final String ANNOTATION = PodStamps.SKIP_INJECT;

  private static final Set<String> TRUE = Set.of("1", "t", "T", "TRUE", "true", "True");
  private static final Set<String> FALSE = Set.of("0", "f", "F", "FALSE", "false", "False");
  private static final Set<String> KEEP = Set.of("no", "off", "disable", "disabled");

  private SkipInject() {}

  /** True when the annotation's value opts the pod out of injection. */
  static boolean optsOut(final String value) {
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
