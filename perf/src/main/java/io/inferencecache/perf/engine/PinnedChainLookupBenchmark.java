package io.inferencecache.perf.engine;

import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import org.openjdk.jmh.annotations.Param;

/**
 * 64-block chain, fully matched by 16 holders of 256 replicas, in the pinned shape. Full size is
 * {@code pinnedChains=12500} (12.8M holder-blocks); {@code pinnedChains=195} is the 1/64 CI size.
 */
public class PinnedChainLookupBenchmark extends LookupBenchmark {
  @Param({"12500"})
  public int pinnedChains;

  @Override
  protected Workload workload() {
    return SyntheticChains.pinned(pinnedChains);
  }

  @Override
  protected int expectedHolders() {
    return SyntheticChains.PINNED_HOLDERS;
  }
}
