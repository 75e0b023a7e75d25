package io.inferencecache.perf.engine;

import io.inferencecache.perf.workload.MooncakeWorkload;
import io.inferencecache.perf.workload.Workload;
import org.openjdk.jmh.annotations.Param;

/**
 * Random request chains of the Mooncake conversation trace, every request ingested first (8
 * replicas round-robin, 512 tokens a block). {@code trace} is resolved by {@link
 * MooncakeWorkload#resolve}: the in-repository trace by default, {@code -p trace=synthetic} or
 * {@code -p trace=PATH} for another.
 */
public class MooncakeLookupBenchmark extends LookupBenchmark {
  @Param({MooncakeWorkload.DEFAULT_TRACE})
  public String trace;

  @Override
  protected Workload workload() {
    return MooncakeWorkload.load(MooncakeWorkload.resolve(trace));
  }

  @Override
  protected int expectedHolders() {
    return -1;
  }
}
