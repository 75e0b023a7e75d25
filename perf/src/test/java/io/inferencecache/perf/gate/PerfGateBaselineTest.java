package io.inferencecache.perf.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void rewritingTheBaselineKeepsEachFiguresKindAndToleranceAndDefaultsNewFigures(
      @TempDir final Path dir) throws Exception {
    final PerfGate.Baseline committed =
        new PerfGate.Baseline(
            new ObjectMapper()
                .readTree(
                    "{\"figures\":{\""
                        + PerfGate.LOOKUP_FLOOR
                        + "\":{\"value\":0.2,\"kind\":\"UPPER_RELATIVE\",\"tolerance\":0.35}}}"));
    final PerfGate.Report run =
        new PerfGate.Report(
            List.of(
                committed.figure(PerfGate.LOOKUP_FLOOR, 0.25, "this run"),
                committed.figure(PerfGate.INGEST_FLOOR, 0.6, "this run")),
            1);
    final Path file = dir.resolve("baseline.json");
    PerfGate.Baseline.write(file, run, 21);
    final PerfGate.Baseline written = PerfGate.Baseline.read(file);
    final PerfGate.Figure lookup = written.figure(PerfGate.LOOKUP_FLOOR, 0.3, "");
    assertThat(lookup.baseline()).isEqualTo(0.25);
    assertThat(lookup.tolerance()).isEqualTo(0.35);
    assertThat(lookup.passed()).as(lookup.line()).isTrue(); // 0.3 <= 0.25 x 1.35
    assertThat(written.figure(PerfGate.LOOKUP_FLOOR, 0.34, "").passed()).isFalse();
    final PerfGate.Figure ingest = written.figure(PerfGate.INGEST_FLOOR, 0.6, "");
    assertThat(ingest.tolerance()).isEqualTo(PerfGate.DEFAULTS.get(PerfGate.INGEST_FLOOR)[1]);
    assertThat(ingest.kind()).isEqualTo(PerfGate.Kind.UPPER_RELATIVE);
  }

  @Test
  void aKeepHighestFigureIsNeverLoweredByARewriteButRaisedByAHigherRun(@TempDir final Path dir)
      throws Exception {
    final PerfGate.Baseline committed =
        new PerfGate.Baseline(
            new ObjectMapper()
                .readTree(
                    "{\"figures\":{\""
                        + PerfGate.LOOKUP
                        + "\":{\"value\":2500,\"kind\":\"UPPER_RELATIVE\",\"tolerance\":1.0,"
                        + "\"update\":\"keepHighest\"},\""
                        + PerfGate.INGEST
                        + "\":{\"value\":70,\"kind\":\"UPPER_RELATIVE\",\"tolerance\":1.0,"
                        + "\"update\":\"keepHighest\"}}}"));
    final Path file = dir.resolve("baseline.json");
    PerfGate.Baseline.write(
        file,
        new PerfGate.Report(
            List.of(
                committed.figure(PerfGate.LOOKUP, 600, "loaded run"),
                committed.figure(PerfGate.INGEST, 90, "quiet run")),
            1),
        21);
    final PerfGate.Baseline written = PerfGate.Baseline.read(file);
    final PerfGate.Figure lookup = written.figure(PerfGate.LOOKUP, 1, "");
    assertThat(lookup.baseline()).isEqualTo(2500);
    assertThat(lookup.keepHighest()).isTrue();
    assertThat(written.figure(PerfGate.INGEST, 1, "").baseline()).isEqualTo(90);
  }
}
