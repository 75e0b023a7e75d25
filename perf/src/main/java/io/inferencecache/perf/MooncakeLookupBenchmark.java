package io.inferencecache.perf;

import org.openjdk.jmh.annotations.Param;

/**
 * Random request chains of the Mooncake conversation trace, every request ingested first (8
 * replicas round-robin, 512 tokens a block). {@code trace} is resolved against the working
 * directory and its parents (run from the repository root); {@code -p trace=PATH} overrides it.
 */
public class MooncakeLookupBenchmark extends LookupBenchmark {
  @Param({MooncakeTrace.DEFAULT_PATH})
  public String trace;

  @Override
  protected Workload workload() {
    return MooncakeTrace.load(MooncakeTrace.resolve(trace));
  }

  @Override
  protected int expectedHolders() {
    return -1;
  }
}
