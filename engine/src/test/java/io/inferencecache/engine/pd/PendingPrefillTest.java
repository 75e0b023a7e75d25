package io.inferencecache.engine.pd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link PendingPrefill}: tokens per replica since its stats report, reset by a new report. */
class PendingPrefillTest {
  final PendingPrefill pending = new PendingPrefill();

  @Test
  void tokensAddUpUntilTheReplicaReportsAgain() {
    pending.add(3, 100L, 30_000);
    pending.add(3, 100L, 512);
    assertThat(pending.since(3, 100L)).isEqualTo(30_512);
    // A later report includes those requests: the count belongs to the old one.
    assertThat(pending.since(3, 200L)).isZero();
    pending.add(3, 200L, 7);
    assertThat(pending.since(3, 200L)).isEqualTo(7);
    assertThat(pending.since(3, 100L)).isZero();
  }

  @Test
  void aReplicaWithoutStatsCountsUnderAFixedReportTime() {
    pending.add(0, Long.MIN_VALUE, 1_000);
    assertThat(pending.since(0, Long.MIN_VALUE)).isEqualTo(1_000);
    assertThat(pending.since(1, Long.MIN_VALUE)).isZero();
  }

  @Test
  void idsBeyondTheInitialSizeGrowTheLedgerAndKeepEarlierCounts() {
    pending.add(5, 1L, 10);
    pending.add(10_000, 1L, 20);
    assertThat(pending.since(10_000, 1L)).isEqualTo(20);
    assertThat(pending.since(5, 1L)).isEqualTo(10);
    assertThat(pending.since(20_000, 1L)).isZero();
  }

  @Test
  void negativeIdsAndNonPositiveCountsAreIgnored() {
    pending.add(-1, 1L, 10);
    pending.add(2, 1L, 0);
    pending.add(2, 1L, -5);
    assertThat(pending.since(-1, 1L)).isZero();
    assertThat(pending.since(2, 1L)).isZero();
  }
}
