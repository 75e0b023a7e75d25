package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The prefill/decode routing policies {@link PdSimulator} compares. The first two ask the index
 * (reports and stats of the simulated replicas, as a gateway would); the peers decide on the
 * fleet's exact state (queues, batches and KV caches as they are at that instant), so their figures
 * are upper bounds of their rules.
 */
public enum PdPolicy {
  /**
   * Ours: the engine's LookupPDRoute decision ({@link io.inferencecache.engine.PdRouter}: pairs
   * scored with the KV transfer term, the topology's decode-local rule) on the reported state.
   */
  PD_ROUTER("pd-router", true),
  /** P/D-blind: prefill = LookupRoute's first prefill replica (else in turn), decode in turn. */
  PD_BLIND("pd-blind", true),
  /**
   * Dynamo-like: decode by load (fewest active blocks); decode-local when the prompt's part not
   * cached there is below the threshold; else prefill by {@code overlapWeight × uncached blocks +
   * active blocks}, lowest first.
   */
  DYNAMO("dynamo-like", false),
  /**
   * llm-d-like: decode first by queue and KV-use scorers; decode-local when its non-cached tokens
   * are below the threshold; else prefill by {@code wp × prefix + wq × queue + wk × (1 − KV use)}.
   */
  LLMD("llm-d-like", false),
  /**
   * SGLang-like: cache-aware prefill (the best prefix match when its match rate passes the
   * threshold and the pool is balanced, else the shortest queue), power-of-two-choices decode, no
   * skip rule.
   */
  SGLANG("sglang-like", false);

  final String label;
  final boolean usesIndex;

  PdPolicy(final String label, final boolean usesIndex) {
    this.label = label;
    this.usesIndex = usesIndex;
  }

  static List<PdPolicy> parseList(final String v) {
    final List<PdPolicy> out = new ArrayList<>();
    for (String s : v.split(",")) {
      out.add(parse(s.trim()));
    }
    return out;
  }

  static PdPolicy parse(final String s) {
    for (PdPolicy p : values()) {
      if (p.label.equals(s.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new FleetOptions.UsageException("unknown policy " + s + "; one of " + names());
  }

  static String names() {
    return Arrays.stream(values()).map(p -> p.label).collect(Collectors.joining(", "));
  }
}
