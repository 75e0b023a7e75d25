package io.inferencecache.perf.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The CI perf gate (run by failsafe in {@code ./mvnw verify}): {@link PerfGate}'s figures against
 * {@code perf/baseline.json}, then proof that the gate can fail: the same comparison with a
 * deliberate slowdown and a deliberate allocation in the gate's own engine lookup loop must report
 * a regression naming the figure (the slowdown: both lookup figures, against the reference loop and
 * against the bare Chronicle probe).
 *
 * <p>System properties (forwarded by the perf POM): {@code perf.gate.baseline} (the file), {@code
 * perf.gate.update=true} (write this run's figures as the new baseline instead of comparing),
 * {@code perf.gate.slowdown=N} (N extra lookups per timed lookup in the main gate run: the build
 * then fails, as it should).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerfGateIT {
  private static final Path BASELINE =
      Path.of(System.getProperty("perf.gate.baseline", "baseline.json"));

  /** The lookup figures the main gate run measured in this JVM (NaN until it ran). */
  private static volatile double measuredLookup = Double.NaN;

  private static volatile double measuredLookupVsProbe = Double.NaN;

  private static boolean updating() {
    return Boolean.getBoolean("perf.gate.update");
  }

  @Test
  @Order(1)
  void keyFiguresHoldAgainstTheBaseline() throws Exception {
    final PerfGate.Settings s =
        new PerfGate.Settings().extraLookups(Integer.getInteger("perf.gate.slowdown", 0));
    final PerfGate.Report r = PerfGate.run(s, PerfGate.Baseline.read(BASELINE));
    System.out.print(r.render());
    if (s.extraLookups == 0) {
      measuredLookup = r.figure(PerfGate.LOOKUP).measured();
      measuredLookupVsProbe = r.figure(PerfGate.LOOKUP_FLOOR).measured();
    }
    if (updating()) {
      PerfGate.Baseline.write(BASELINE.toAbsolutePath(), r, s.rounds);
      System.out.println("perf gate: wrote the new baseline " + BASELINE.toAbsolutePath());
      return;
    }
    if (!r.passed()) {
      fail(r.failureMessage());
    }
  }

  @Test
  @Order(2)
  void aDeliberateLookupSlowdownFailsTheGate() throws Exception {
    Assumptions.assumeFalse(updating(), "baseline update run");
    // 5 extra lookups per timed engine lookup (the bare probes are untouched): 6x the work, far
    // past the +100% and +75% tolerances. Judged against the lower of the committed baseline and
    // this JVM's
    // own unslowed figures: the ratio to the reference loop moves up to 3x between runs on a
    // loaded machine, so a run that came out 3x below the committed value would otherwise hide
    // even a 6x slowdown.
    final PerfGate.Report r =
        PerfGate.runEngineTiming(
            new PerfGate.Settings().extraLookups(5).rounds(3, 11).warmupCpuSeconds(2),
            PerfGate.Baseline.read(BASELINE)
                .anchoredAtMost(PerfGate.LOOKUP, measuredLookup)
                .anchoredAtMost(PerfGate.LOOKUP_FLOOR, measuredLookupVsProbe));
    System.out.print("self-test (slowdown switch on): " + r.render());
    final PerfGate.Figure lookup = r.figure(PerfGate.LOOKUP);
    assertThat(lookup.passed()).as(lookup.line()).isFalse();
    final PerfGate.Figure vsProbe = r.figure(PerfGate.LOOKUP_FLOOR);
    assertThat(vsProbe.passed()).as(vsProbe.line()).isFalse();
    assertThat(r.passed()).isFalse();
    assertThat(r.failureMessage())
        .contains(PerfGate.LOOKUP)
        .contains(PerfGate.LOOKUP_FLOOR)
        .contains("measured")
        .contains("baseline")
        .contains("tolerance")
        .contains("REGRESSION");
    // The switch adds lookups only: the allocation figure is unaffected.
    assertThat(r.figure(PerfGate.ALLOC).passed()).as(r.figure(PerfGate.ALLOC).line()).isTrue();
  }

  @Test
  @Order(3)
  void aDeliberateAllocationFailsTheGate() throws Exception {
    Assumptions.assumeFalse(updating(), "baseline update run");
    final PerfGate.Report r =
        PerfGate.runEngineTiming(
            new PerfGate.Settings().allocate(true).rounds(1, 3).warmupCpuSeconds(0),
            PerfGate.Baseline.read(BASELINE));
    System.out.print("self-test (allocation switch on): " + r.render());
    final PerfGate.Figure alloc = r.figure(PerfGate.ALLOC);
    assertThat(alloc.passed()).as(alloc.line()).isFalse();
    assertThat(alloc.measured()).isGreaterThanOrEqualTo(16.0);
    assertThat(r.failureMessage()).contains(PerfGate.ALLOC);
  }
}
