package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The fleet simulator through the real server over gRPC on loopback: every report, stats row and
 * eviction reaches the index before the next lookup, so the hint policies get exactly the answers
 * the in-process LookupRouter gives, and the whole table equals the engine mode's.
 */
class FleetSimulatorIT {
  @Test
  void grpcModeGivesTheEngineModesTable() throws Exception {
    final String[] common = {
      "--requests",
      "800",
      "--loads",
      "0.9",
      "--quiet",
      "--policies",
      "top-hint,top-hint-load-aware,prefix-else-least-loaded,cost-model"
    };
    final FleetSimulator.Report engine =
        FleetSimulator.run(FleetOptions.parse(with(common, "engine")));
    final FleetSimulator.Report grpc = FleetSimulator.run(FleetOptions.parse(with(common, "grpc")));
    System.out.print(grpc.text());
    assertThat(grpc.rows()).isEqualTo(engine.rows());
    assertThat(grpc.rows().get(0).getValue().get(1).share("AFFINITY_HINT")).isPositive();
  }

  private static String[] with(final String[] common, final String mode) {
    final String[] a = new String[common.length + 2];
    System.arraycopy(common, 0, a, 0, common.length);
    a[common.length] = "--mode";
    a[common.length + 1] = mode;
    return a;
  }
}
