package io.inferencecache.controlplane.k8s.validation;

import io.inferencecache.controlplane.k8s.model.PDTopology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules a PDTopology must follow beyond its schema, each violation naming its field. One owner
 * for the admission webhook (which refuses the object) and the controller (which sets {@code
 * Ready=False/InvalidSpec} and leaves the topology out of the server's body, so one bad object
 * never makes the server refuse the whole set):
 *
 * <ol>
 *   <li>at least one prefill pool and one decode pool;
 *   <li>every pool has a non-empty name, unique within and across both roles;
 *   <li>every pool has non-empty {@code matchLabels} (an empty selector would take every pod of the
 *       namespace);
 *   <li>a pool's {@code acceleratorType}, when set, names an entry of {@code acceleratorTypes};
 *       those entries have unique non-empty names;
 *   <li>{@code replicas} and {@code decodeLocalPrefillTokens} are ≥ 0, {@code kvBytesPerToken} is
 *       &gt; 0, every {@code links} bandwidth is finite and &gt; 0;
 *   <li>{@code transport}, as sent, is {@code Mooncake}, {@code NIXL} or {@code Direct}.
 * </ol>
 */
public final class PdTopologyRules {
  /** The transports the CRD's enum allows, in its order. */
  public static final List<String> TRANSPORTS = List.of("Mooncake", "NIXL", "Direct");

  /**
   * One broken rule.
   *
   * @param kind what is wrong, as Kubernetes' field errors say it
   * @param field the field path, e.g. {@code spec.decodePools[1].name}
   * @param value the refused value as text, or null (required / duplicate-free fields)
   * @param detail what is expected
   */
  public record Violation(Kind kind, String field, String value, String detail) {
    /** {@code field: detail}, for a condition message or a log line. */
    @Override
    public String toString() {
      return field + (value == null ? "" : " (\"" + value + "\")") + ": " + detail;
    }
  }

  /** The Kubernetes field error type of a violation. */
  public enum Kind {
    INVALID,
    REQUIRED,
    DUPLICATE,
    NOT_SUPPORTED
  }

  private PdTopologyRules() {}

  /**
   * Every violation of {@code spec}, in field order.
   *
   * @param transportAsSent {@code spec.transport} as the object carried it (the typed model reads
   *     an unknown value as null), or null when absent
   */
  public static List<Violation> check(final PDTopology.Spec spec, final String transportAsSent) {
    final List<Violation> out = new ArrayList<>();
    if (spec == null) {
      out.add(new Violation(Kind.REQUIRED, "spec", null, "a PDTopology needs a spec"));
      return out;
    }
    final Set<String> accelerators = new HashSet<>();
    final List<PDTopology.AcceleratorType> types = orEmpty(spec.acceleratorTypes);
    for (int i = 0; i < types.size(); i++) {
      final String f = "spec.acceleratorTypes[" + i + "]";
      final PDTopology.AcceleratorType t = types.get(i);
      if (t == null || t.name == null || t.name.isEmpty()) {
        out.add(
            new Violation(Kind.REQUIRED, f + ".name", null, "an accelerator type needs a name"));
      } else if (!accelerators.add(t.name)) {
        out.add(
            new Violation(
                Kind.DUPLICATE, f + ".name", t.name, "two acceleratorTypes share this name"));
      }
    }
    final Map<String, String> poolFields = new HashMap<>();
    pools(out, "spec.prefillPools", spec.prefillPools, accelerators, poolFields);
    pools(out, "spec.decodePools", spec.decodePools, accelerators, poolFields);
    if (transportAsSent != null && !TRANSPORTS.contains(transportAsSent)) {
      out.add(
          new Violation(
              Kind.NOT_SUPPORTED,
              "spec.transport",
              transportAsSent,
              "supported values: \"Mooncake\", \"NIXL\", \"Direct\""));
    }
    if (spec.decodeLocalPrefillTokens != null && spec.decodeLocalPrefillTokens < 0) {
      out.add(
          new Violation(
              Kind.INVALID,
              "spec.decodeLocalPrefillTokens",
              String.valueOf(spec.decodeLocalPrefillTokens),
              "must be 0 (never decode-local) or more"));
    }
    if (spec.kvBytesPerToken != null && spec.kvBytesPerToken <= 0) {
      out.add(
          new Violation(
              Kind.INVALID,
              "spec.kvBytesPerToken",
              String.valueOf(spec.kvBytesPerToken),
              "must be greater than 0"));
    }
    if (spec.links != null) {
      bandwidth(out, "spec.links.sameNodeGBps", spec.links.sameNodeGBps);
      bandwidth(out, "spec.links.sameVendorGBps", spec.links.sameVendorGBps);
      bandwidth(out, "spec.links.crossGBps", spec.links.crossGBps);
    }
    return out;
  }

  private static void pools(
      final List<Violation> out,
      final String base,
      final List<PDTopology.Pool> pools,
      final Set<String> accelerators,
      final Map<String, String> seen) {
    if (pools == null || pools.isEmpty()) {
      out.add(
          new Violation(
              Kind.REQUIRED, base, null, "a PDTopology needs at least one pool of each role"));
      return;
    }
    for (int i = 0; i < pools.size(); i++) {
      final String f = base + "[" + i + "]";
      final PDTopology.Pool p = pools.get(i);
      if (p == null || p.name == null || p.name.isEmpty()) {
        out.add(new Violation(Kind.REQUIRED, f + ".name", null, "a pool needs a name"));
      } else {
        final String first = seen.putIfAbsent(p.name, f);
        if (first != null) {
          out.add(
              new Violation(
                  Kind.DUPLICATE,
                  f + ".name",
                  p.name,
                  "pool names are unique across prefill and decode pools; "
                      + first
                      + " has it already"));
        }
      }
      if (p == null) {
        continue;
      }
      if (p.matchLabels == null || p.matchLabels.isEmpty()) {
        out.add(
            new Violation(
                Kind.REQUIRED,
                f + ".matchLabels",
                null,
                "a pool selects its pods by labels; an empty selector would take every pod"));
      }
      if (p.acceleratorType != null
          && !p.acceleratorType.isEmpty()
          && !accelerators.contains(p.acceleratorType)) {
        out.add(
            new Violation(
                Kind.INVALID,
                f + ".acceleratorType",
                p.acceleratorType,
                "names no entry of spec.acceleratorTypes"));
      }
      if (p.replicas != null && p.replicas < 0) {
        out.add(
            new Violation(
                Kind.INVALID, f + ".replicas", String.valueOf(p.replicas), "must be 0 or more"));
      }
    }
  }

  private static void bandwidth(final List<Violation> out, final String field, final Double v) {
    if (v != null && !(Double.isFinite(v) && v > 0)) {
      out.add(
          new Violation(
              Kind.INVALID, field, String.valueOf(v), "a bandwidth in GB/s, greater than 0"));
    }
  }

  private static <T> List<T> orEmpty(final List<T> list) {
    return list == null ? List.of() : list;
  }
}
