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

  @Test
  void drainIntervalIsMeasuredOnlyWhileTasksKeepWaiting() throws Exception {
    for (int i = 0; i < 4; i++) {
      queue.offer(() -> {});
    }
    now.set(2_000);
    queue.take(); // 3 left: the backlog starts here
    assertThat(queue.drainIntervalNanos()).isZero();
    now.set(2_400);
    queue.take(); // 2 left: one interval of 400 while tasks waited
    assertThat(queue.drainIntervalNanos()).isEqualTo(400);
    assertThat(queue.expectedWaitNanos()).isEqualTo(2 * 400);
    now.set(2_600);
    queue.take(); // 1 left: 400 + (200 - 400) / 8
    assertThat(queue.drainIntervalNanos()).isEqualTo(375);
    now.set(3_000);
    queue.take(); // empty afterwards: this backlog's pace is forgotten
    assertThat(queue.drainIntervalNanos()).isZero();
    assertThat(queue.expectedWaitNanos()).isZero();
    now.set(1_000_000); // a long idle gap, then a new backlog
    for (int i = 0; i < 3; i++) {
      queue.offer(() -> {});
    }
    now.set(1_000_100);
    queue.take(); // the gap is not a drain interval
    assertThat(queue.drainIntervalNanos()).isZero();
    assertThat(queue.expectedWaitNanos()).isZero();
    now.set(1_000_150);
    queue.take(); // the new backlog's first interval seeds its pace
    assertThat(queue.drainIntervalNanos()).isEqualTo(50);
    assertThat(queue.expectedWaitNanos()).isEqualTo(50);
  }

  @Test
  void aHandlerThreadLearnsHowLongItsTaskWaited() throws Exception {
    now.set(5_000);
    queue.offer(() -> {});
    now.set(5_750);
    final long[] seen = new long[2];
    final Thread t =
        HandlerThread.factory("test")
            .newThread(
                () -> {
                  try {
                    queue.take();
                    seen[0] = HandlerThread.taskWaitNanos();
                    queue.offer(() -> {});
                    queue.take(); // taken at the same clock reading: waited 0
                    seen[1] = HandlerThread.taskWaitNanos();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
    t.start();
    t.join(10_000);
    assertThat(t.getName()).isEqualTo("test-1");
    assertThat(t.isDaemon()).isTrue();
    assertThat(seen).containsExactly(750, 0);
    assertThat(HandlerThread.taskWaitNanos()).as("not a handler thread").isZero();
  }
}
