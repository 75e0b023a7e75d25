package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.perf.workload.MooncakeWorkload;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The P/D fleet model's invariants, on the first requests of the conversation trace, for every
 * policy: every request completes exactly once, after its first token, which comes after its
 * arrival; the bytes moved are the sum of the transfers (a decode-local request moves none, every
 * other moves its whole prompt's KV over one link); a run is a function of the seed.
 */
@Timeout(120)
class PdRunTest {
  private static final int N = 600;
  private static MooncakeTraceFile trace;

  @BeforeAll
  static void load() {
    trace = MooncakeTraceFile.load(MooncakeWorkload.resolve("conversation"));
  }

  private static PdOptions options(final String... args) {
    return PdOptions.parse(args);
  }

  /** Runs {@code p} at {@code load} and returns the finished run (its arrays). */
  private static PdRun run(final PdOptions o, final PdPolicy p, final double load)
      throws Exception {
    final SimClock clock = new SimClock();
    final double scale = PdRun.nativeLoad(o, trace, N) / load;
    try (PdIndex index = p.usesIndex ? new PdIndex(o, p, clock) : null) {
      final PdRun run = new PdRun(o, trace, N, scale, p, index, clock);
      run.run();
      return run;
    }
  }

  @Test
  void everyRequestCompletesOnceAfterItsFirstToken() throws Exception {
    final PdOptions o = options();
    for (PdPolicy p : PdPolicy.values()) {
      final PdRun run = run(o, p, 0.9);
      for (int i = 0; i < N; i++) {
        assertThat(run.completions[i]).as("%s request %d", p.label, i).isEqualTo(1);
        assertThat(run.firstTokenUs[i]).as("%s", p.label).isGreaterThan(run.arrivalUs[i]);
        assertThat(run.finishUs[i]).as("%s", p.label).isGreaterThanOrEqualTo(run.firstTokenUs[i]);
        assertThat(run.decodeOf[i]).isBetween(o.prefillReplicas, o.replicas() - 1);
        assertThat(run.prefillOf[i]).isBetween(-1, o.prefillReplicas - 1);
      }
    }
  }

  @Test
  void bytesMovedAreTheSumOfTheTransfersAndDecodeLocalMovesNone() throws Exception {
    final PdOptions o = options();
    final Set<PdPolicy> sawLocal = EnumSet.noneOf(PdPolicy.class);
    for (PdPolicy p : PdPolicy.values()) {
      final PdRun run = run(o, p, 0.7);
      long sum = 0;
      long transfers = 0;
      for (int i = 0; i < N; i++) {
        if (run.prefillOf[i] < 0) {
          sawLocal.add(p);
          assertThat(run.bytesMoved[i]).as("%s request %d", p.label, i).isZero();
        } else {
          assertThat(run.bytesMoved[i]).isEqualTo(trace.inputTokens(i) * o.kvBytesPerToken);
          transfers++;
        }
        sum += run.bytesMoved[i];
      }
      assertThat(run.transferredBytes()).as(p.label).isEqualTo(sum);
      assertThat(run.linkTransfers[0] + run.linkTransfers[1] + run.linkTransfers[2])
          .isEqualTo(transfers);
      final PdResult r = PdResult.of(run);
      assertThat(r.kvBytesMoved()).isEqualTo(sum);
      assertThat(r.decodeLocalFraction()).isEqualTo((double) (N - transfers) / N);
    }
    // The skip rules do skip on this trace; the policies without one never do.
    assertThat(sawLocal).contains(PdPolicy.DYNAMO, PdPolicy.LLMD);
    assertThat(sawLocal).doesNotContain(PdPolicy.PD_BLIND, PdPolicy.SGLANG);
  }

  @Test
  void theSameSeedGivesTheSameRunAndAnotherSeedAnotherDraw() throws Exception {
    for (PdPolicy p : PdPolicy.values()) {
      assertThat(PdResult.of(run(options("--seed", "7"), p, 0.9)))
          .as(p.label)
          .isEqualTo(PdResult.of(run(options("--seed", "7"), p, 0.9)));
    }
    // Power of two choices draws its decode pair at random.
    final PdRun a = run(options("--seed", "7"), PdPolicy.SGLANG, 0.9);
    final PdRun b = run(options("--seed", "8"), PdPolicy.SGLANG, 0.9);
    assertThat(a.decodeOf).isNotEqualTo(b.decodeOf);
  }

  @Test
  void decodeLoadSlowsTheTokensAndALocalPrefillStallsTheBatch() throws Exception {
    final PdOptions o = options();
    final PdResult light = PdResult.of(run(o, PdPolicy.SGLANG, 0.3));
    final PdResult heavy = PdResult.of(run(o, PdPolicy.SGLANG, 0.9));
    assertThat(heavy.itlP50Ms()).isGreaterThan(light.itlP50Ms());
    assertThat(light.itlP50Ms()).isGreaterThanOrEqualTo(o.decodeStepMs);
    // Same decisions, the stall off: decode-local prefills no longer slow the batch.
    final PdResult stalled = PdResult.of(run(o, PdPolicy.DYNAMO, 0.9));
    final PdResult free =
        PdResult.of(run(options("--local-prefill-stall", "0"), PdPolicy.DYNAMO, 0.9));
    assertThat(stalled.decodeLocalFraction()).isPositive();
    assertThat(free.itlP99Ms()).isLessThan(stalled.itlP99Ms());
  }

  @Test
  void aBatchAdvancesOneTokenPerStepOfItsSize() {
    final PdOptions o = options("--decode-step-ms", "10", "--decode-batch-slope", "0.5");
    final PdReplica d = new PdReplica(8, true, 4, 64);
    final int[] out = {5, 3};
    final long[] first = {-1, -1};
    d.join(0, 5);
    d.join(1, 3);
    // Two running: a step is 10 ms × 1.5 = 15,000 µs; the shorter one ends after 3 steps.
    assertThat(d.untilNextFinish(o)).isEqualTo(45_000);
    d.advance(45_000, o, out, (req, us) -> first[req] = us);
    assertThat(first).containsExactly(15_000, 15_000);
    final int[] done = new int[1];
    assertThat(d.retireFinished(o, req -> done[0] = req)).isEqualTo(1);
    assertThat(done[0]).isEqualTo(1);
    // Alone, request 0 runs at 10 ms a step: 2 tokens left.
    assertThat(d.untilNextFinish(o)).isEqualTo(20_000);
  }

  @Test
  void linkClassesFollowNodesAndVendors() {
    final PdOptions o = options(); // 8 + 8 on 8 nodes, 2 vendors: nodes 0-3 and 4-7
    assertThat(o.linkClass(0, 8)).isZero(); // prefill 0 and decode 0 share node 0
    assertThat(o.linkClass(0, 9)).isEqualTo(1); // nodes 0 and 1, one vendor
    assertThat(o.linkClass(0, 12)).isEqualTo(2); // nodes 0 and 4
    // 1,000 tokens × 131,072 B over 10 GB/s: 13.1 ms; over 300 GB/s: 0.44 ms.
    assertThat(o.transferMicros(1000, 2)).isEqualTo(13_107);
    assertThat(o.transferMicros(1000, 0)).isEqualTo(437);
  }

  @Test
  void badOptionsAreNamed() {
    assertThatThrownBy(() -> options("--decode-slots", "0"))
        .hasMessageContaining("--decode-slots must be >= 1");
    assertThatThrownBy(() -> options("--local-prefill-stall", "2"))
        .hasMessageContaining("--local-prefill-stall must be in [0, 1]");
    assertThatThrownBy(() -> options("--policies", "nope")).hasMessageContaining("unknown policy");
    assertThatThrownBy(() -> options("--nodes", "1", "--vendors", "2"))
        .hasMessageContaining("--nodes must be >= --vendors");
  }
}
