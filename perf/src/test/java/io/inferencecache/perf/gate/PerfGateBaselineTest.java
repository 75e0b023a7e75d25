package io.inferencecache.perf.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class PerfGateBaselineTest {
  private static PerfGate.Baseline baseline(final double lookupValue) throws Exception {
    return new PerfGate.Baseline(
        new ObjectMapper()
            .readTree(
                "{\"figures\":{\""
                    + PerfGate.LOOKUP
                    + "\":{\"value\":"
                    + lookupValue
                    + ",\"kind\":\"UPPER_RELATIVE\",\"tolerance\":1.0}}}"));
  }

  @Test
  void anchoringLowersTheValueToWhatThisJvmMeasuredAndKeepsKindAndTolerance() throws Exception {
    final PerfGate.Figure f =
        baseline(10_000).anchoredAtMost(PerfGate.LOOKUP, 3_000).figure(PerfGate.LOOKUP, 18_000, "");
    assertThat(f.baseline()).isEqualTo(3_000);
    assertThat(f.kind()).isEqualTo(PerfGate.Kind.UPPER_RELATIVE);
    assertThat(f.tolerance()).isEqualTo(1.0);
    assertThat(f.passed()).as(f.line()).isFalse(); // 6x the anchored value is past +100 %
  }

  @Test
  void anchoringNeverRaisesTheCommittedValue() throws Exception {
    final PerfGate.Figure f =
        baseline(10_000)
            .anchoredAtMost(PerfGate.LOOKUP, 30_000)
            .figure(PerfGate.LOOKUP, 18_000, "");
    assertThat(f.baseline()).isEqualTo(10_000);
    assertThat(f.passed()).as(f.line()).isTrue();
  }

  @Test
  void anUnmeasuredFigureLeavesTheBaselineAsCommitted() throws Exception {
    final PerfGate.Figure f =
        baseline(10_000)
            .anchoredAtMost(PerfGate.LOOKUP, Double.NaN)
            .figure(PerfGate.LOOKUP, 18_000, "");
    assertThat(f.baseline()).isEqualTo(10_000);
  }
}
