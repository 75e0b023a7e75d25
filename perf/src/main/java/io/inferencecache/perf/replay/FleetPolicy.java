package io.inferencecache.perf.replay;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The routing policies {@link FleetSimulator} compares, all in one run on the same trace. */
public enum FleetPolicy {
  /** The top replica of the server's LookupRoute answer (upstream strategy); none → round-robin. */
  TOP_HINT("top-hint", true, false),
  /** The same with the CachePolicy's {@code loadAwareRouting} on. */
  TOP_HINT_LOAD_AWARE("top-hint-load-aware", true, true),
  /** The top replica of a PREFIX_MATCH answer, anything else → least-loaded (exact state). */
  PREFIX_ELSE_LEAST_LOADED("prefix-else-least-loaded", true, false),
  /** Replicas in turn. */
  ROUND_ROBIN("round-robin", false, false),
  /** Fewest running + waiting requests (exact state); ties at random. */
  LEAST_LOADED("least-loaded", false, false),
  /**
   * An llm-d-like weighted scorer on exact state: {@code wp × prefix fraction + wq × queue score +
   * wk × (1 − KV use)}, the highest wins, ties at random.
   */
  LLMD("llm-d-like", false, false),
  /**
   * A Dynamo-like cost on exact state: {@code overlapWeight × blocks to prefill + active blocks},
   * the lowest wins (temperature 0) or softmax sampling of the normalized costs.
   */
  DYNAMO("dynamo-like", false, false),
  /**
   * The top replica of the server's LookupRoute answer with the CachePolicy's {@code
   * loadAwareRouting.costModel} on (expected TTFT from reported stats).
   */
  COST_MODEL("cost-model", true, true),
  /**
   * The cost model's formula fed exact state instead of the index and reported stats: the replica's
   * cache and its running + waiting requests now (the headroom of the stats-fed strategy).
   */
  COST_MODEL_EXACT("cost-model-exact", false, false),
  /**
   * Greedy exact TTFT, clairvoyant: each request to the replica where its own queue wait + prefill
   * is lowest, computed from the running requests' end times, the queued requests' prefill and
   * decode (their output lengths known) and the cache now; ties at random. A bound on what any
   * per-request TTFT rule can reach, not a deployable policy.
   */
  GREEDY_TTFT("greedy-exact-ttft", false, false);

  final String label;
  final boolean usesIndex;
  final boolean loadAware;

  FleetPolicy(final String label, final boolean usesIndex, final boolean loadAware) {
    this.label = label;
    this.usesIndex = usesIndex;
    this.loadAware = loadAware;
  }

  /** Whether the answers depend on the stats reports (the index's hint policies). */
  boolean readsStats() {
    return usesIndex;
  }

  static FleetPolicy parse(final String s) {
    for (FleetPolicy p : values()) {
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
