package io.inferencecache.perf.engine;

import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import org.openjdk.jmh.annotations.Param;

/** 1-block chain, one holder per key: the cheapest hit. */
public class SingleHolderLookupBenchmark extends LookupBenchmark {
  /** One-block keys, each held by one of 256 replicas. */
  @Param({"800000"})
  public int keys;

  @Override
  protected Workload workload() {
    return SyntheticChains.singleHolder(keys);
  }

  @Override
  protected int expectedHolders() {
    return 1;
  }
}
