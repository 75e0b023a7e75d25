package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesUpToTheMaximumAndResetsToTheFirstStep() {
    final Backoff b = new Backoff(50, 300);
    assertThat(b.currentNanos()).isEqualTo(50);
    b.grow();
    assertThat(b.currentNanos()).isEqualTo(100);
    b.grow();
    assertThat(b.currentNanos()).isEqualTo(200);
    b.grow();
    assertThat(b.currentNanos()).isEqualTo(300);
    b.grow();
    assertThat(b.currentNanos()).isEqualTo(300);
    b.reset();
    assertThat(b.currentNanos()).isEqualTo(50);
  }

  @Test
  void neverOverflowsNearTheLargestMaximum() {
    final Backoff b = new Backoff(Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE);
    b.grow();
    assertThat(b.currentNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void rejectsAMaximumBelowTheFirstStep() {
    assertThatThrownBy(() -> new Backoff(50, 49)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(0, 49)).isInstanceOf(IllegalArgumentException.class);
  }
}
