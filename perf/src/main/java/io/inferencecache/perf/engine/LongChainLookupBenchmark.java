package io.inferencecache.perf.engine;

import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import org.openjdk.jmh.annotations.Param;

/** 1,024-block chain, fully matched by 4 holders of 32 replicas. */
public class LongChainLookupBenchmark extends LookupBenchmark {
  @Param({"256"})
  public int longChains;

  @Override
  protected Workload workload() {
    return SyntheticChains.longChains(longChains);
  }

  @Override
  protected int expectedHolders() {
    return SyntheticChains.LONG_HOLDERS;
  }
}
