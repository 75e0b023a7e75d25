package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AgedTaskQueueTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final AgedTaskQueue queue = new AgedTaskQueue(now::get);

  @Test
  void emptyQueueHasNoAge() {
    assertThat(queue.headAgeNanos()).isZero();
  }

  @Test
  void ageIsThatOfTheOldestWaitingTaskAsTasksAreTaken() throws Exception {
    queue.offer(() -> {}); // at 1,000
    now.set(1_500);
    queue.offer(() -> {}); // at 1,500
    now.set(2_000);
    queue.offer(() -> {}); // at 2,000
    now.set(3_000);
    assertThat(queue.headAgeNanos()).isEqualTo(2_000);
    assertThat(queue.poll()).isNotNull();
    assertThat(queue.headAgeNanos()).isEqualTo(1_500);
    assertThat(queue.take()).isNotNull();
    assertThat(queue.headAgeNanos()).isEqualTo(1_000);
    assertThat(queue.poll(1, TimeUnit.MILLISECONDS)).isNotNull();
    assertThat(queue.headAgeNanos()).isZero();
    assertThat(queue.poll()).isNull(); // an empty poll does not advance the head
    queue.offer(() -> {});
    now.set(3_250);
    assertThat(queue.headAgeNanos()).isEqualTo(250);
  }

  @Test
  void ringWrapsAroundWithoutLosingTheHead() {
    for (int i = 0; i < AgedTaskQueue.RING * 3; i++) {
      now.set(i);
      queue.offer(() -> {});
      assertThat(queue.poll()).isNotNull();
    }
    now.set(1_000_000);
    queue.offer(() -> {});
    now.set(1_000_100);
    assertThat(queue.headAgeNanos()).isEqualTo(100);
  }
}
