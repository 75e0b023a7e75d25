package io.inferencecache.perf.engine;

import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import org.openjdk.jmh.annotations.Param;

/**
 * Wide fleets (issue 41): 64-block chains, each fully matched by {@code holders} of 1,024 replicas,
 * about {@code holderBlocks} storage entries in all ({@code holderBlocks ÷ (64 × holders)} chains,
 * at least one). Compare the cost per holder-block ({@code p50 ÷ (64 × holders)}) across {@code
 * holders}: a shared system prompt cached on hundreds of replicas is this shape.
 */
public class WideChainLookupBenchmark extends LookupBenchmark {
  /** Replicas in the fleet the holders are drawn from. */
  public static final int WIDE_REPLICAS = 1024;

  @Param({"16", "64", "128", "256", "512"})
  public int holders;

  /** Storage entries of the whole index (983,040 = 15,360 holder-chains of 64 blocks). */
  @Param({"983040"})
  public long holderBlocks;

  @Override
  protected Workload workload() {
    return wide(holderBlocks, holders);
  }

  /** The wide shape: chains of 64 blocks held by {@code holders} of 1,024 replicas. */
  public static SyntheticChains wide(final long holderBlocks, final int holders) {
    final int blocks = SyntheticChains.PINNED_BLOCKS;
    final int chains = (int) Math.max(1, holderBlocks / ((long) blocks * holders));
    return new SyntheticChains(
        "wide", chains, blocks, WIDE_REPLICAS, holders, SyntheticChains.PINNED_TOKENS_PER_BLOCK);
  }

  @Override
  protected int expectedHolders() {
    return holders;
  }
}
