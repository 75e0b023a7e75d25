package io.inferencecache.subscriber.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SequenceTrackerTest {
  private final SequenceTracker tracker = new SequenceTracker();

  @Test
  void firstSequenceIsNeverADiscontinuityWhateverItsValue() {
    assertThat(tracker.observe(42)).isNull();
    assertThat(tracker.observe(43)).isNull();
    assertThat(tracker.gaps()).isZero();
    assertThat(tracker.restarts()).isZero();
  }

  @Test
  void jumpForwardByMoreThanOneIsAGap() {
    tracker.observe(1);

    assertThat(tracker.observe(4))
        .isEqualTo(new SequenceTracker.Discontinuity(SequenceTracker.Kind.GAP, 1, 4));
    assertThat(tracker.observe(5)).isNull();
    assertThat(tracker.gaps()).isEqualTo(1);
  }

  @Test
  void goingBackOrRepeatingIsARestart() {
    tracker.observe(10);

    assertThat(tracker.observe(0))
        .isEqualTo(new SequenceTracker.Discontinuity(SequenceTracker.Kind.RESTART, 10, 0));
    assertThat(tracker.observe(0))
        .isEqualTo(new SequenceTracker.Discontinuity(SequenceTracker.Kind.RESTART, 0, 0));
    assertThat(tracker.observe(1)).isNull();
    assertThat(tracker.restarts()).isEqualTo(2);
  }

  @Test
  void sequencesCompareAsUnsigned() {
    tracker.observe(Long.MAX_VALUE);
    assertThat(tracker.observe(Long.MIN_VALUE)).as("2^63 follows 2^63-1").isNull();
    assertThat(tracker.observe(-1L))
        .extracting(SequenceTracker.Discontinuity::kind)
        .isEqualTo(SequenceTracker.Kind.GAP);
    assertThat(tracker.observe(0))
        .extracting(SequenceTracker.Discontinuity::kind)
        .isEqualTo(SequenceTracker.Kind.RESTART);
  }
}
