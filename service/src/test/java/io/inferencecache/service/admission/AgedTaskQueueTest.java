package io.inferencecache.service.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AgedTaskQueueTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final AgedTaskQueue queue = new AgedTaskQueue(now::get, 1024);

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
    for (int i = 0; i < AgedTaskQueue.MIN_RING * 3; i++) {
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
  void drainIntervalIsMeasuredOnlyWhileTasksKeepWaitingAndUsedAfterFourIntervals()
      throws Exception {
    for (int i = 0; i < 6; i++) {
      queue.offer(() -> {}); // at 1,000
    }
    now.set(2_000);
    queue.take(); // 5 left: the backlog starts here
    assertThat(queue.drainIntervalNanos()).isZero();
    now.set(2_400);
    queue.take(); // an interval of 400 while tasks waited: the plain mean of the first ones
    assertThat(queue.drainIntervalNanos()).isEqualTo(400);
    assertThat(queue.expectedWaitNanos()).as("one interval is not enough").isZero();
    now.set(2_600);
    queue.take(); // (400 + 200) / 2
    assertThat(queue.drainIntervalNanos()).isEqualTo(300);
    now.set(3_000);
    queue.take(); // 300 + (400 - 300) / 3
    assertThat(queue.drainIntervalNanos()).isEqualTo(333);
    assertThat(queue.expectedWaitNanos()).isZero();
    now.set(3_300);
    queue.take(); // 333 + (300 - 333) / 4 = 325; the fourth interval: the estimate is used
    assertThat(queue.drainIntervalNanos()).isEqualTo(325);
    assertThat(queue.expectedWaitNanos()).isEqualTo(325); // 1 task left
    now.set(3_500);
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
    now.set(1_000_150);
    queue.take(); // the new backlog's own first interval
    assertThat(queue.drainIntervalNanos()).isEqualTo(50);
    assertThat(queue.expectedWaitNanos()).isZero();
  }

  @Test
  void theRingHoldsTwiceTheAdmissionBound() {
    final AgedTaskQueue big = new AgedTaskQueue(now::get, 100_000);
    now.set(10);
    for (int i = 0; i < 150_000; i++) {
      big.offer(() -> {});
    }
    now.set(1_010);
    assertThat(big.headAgeNanos())
        .as("the head's stamp survives 150,000 waiting tasks")
        .isEqualTo(1_000);
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
