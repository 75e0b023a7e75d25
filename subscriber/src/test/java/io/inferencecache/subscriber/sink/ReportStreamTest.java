package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which evictions must wait for the open stream's Ack. */
class ReportStreamTest {
  private static final byte[] A = {0, 0, 0, 0, 0, 0, 0, 1};
  private static final byte[] B = {0, 0, 0, 0, 0, 0, 0, 2};

  @Test
  void onlyAnEvictionOfAHashSentOnTheStreamConflicts() {
    final ReportStream s = new ReportStream();
    assertThat(s.conflicts(A)).isFalse();
    s.remember(A);
    s.updates = 1;
    assertThat(s.conflicts(A)).isTrue();
    assertThat(s.conflicts(B)).isFalse();
  }

  @Test
  void aHashOfAnotherLengthIsNotTrackedSoEveryEvictionConflictsOnceOneWentOut() {
    final ReportStream s = new ReportStream();
    s.remember(new byte[32]);
    s.updates = 1;
    assertThat(s.conflicts(B)).isTrue();
  }

  @Test
  void anEvictionWithAnUntrackedLengthConflictsWithAnyUnconfirmedUpdate() {
    final ReportStream s = new ReportStream();
    assertThat(s.conflicts(new byte[4])).isFalse();
    s.remember(A);
    s.updates = 1;
    assertThat(s.conflicts(new byte[4])).isTrue();
  }
}
