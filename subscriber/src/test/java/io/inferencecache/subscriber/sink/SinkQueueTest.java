package io.inferencecache.subscriber.sink;

import static io.inferencecache.subscriber.sink.GrpcUpdateSinkUnreachableIT.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The event path's queue alone: bounds, drop accounting, supersession and the resync request. */
class SinkQueueTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final SinkCounters counters = new SinkCounters();

  private SinkQueue queue(final int updates, final int entries) {
    return new SinkQueue(updates, entries, counters, "127.0.0.1:1", "r1", clock::get);
  }

  @Test
  void updatesAndEntriesAreBoundedAndEveryDropIsCounted() {
    final SinkQueue q = queue(3, 10);
    q.enqueue(new SinkOp.Report(update(4), false), 4);
    q.enqueue(new SinkOp.Report(update(4), false), 4);
    q.enqueue(new SinkOp.Report(update(4), false), 4); // 12 entries > 10
    q.enqueue(new SinkOp.Evict(new byte[8], "", 0), 0); // third op
    q.enqueue(new SinkOp.Evict(new byte[8], "", 0), 0); // fourth op > 3
    assertThat(q.queuedUpdates()).isEqualTo(3);
    assertThat(counters.updatesDropped()).isEqualTo(1);
    assertThat(counters.entriesDropped()).isEqualTo(4);
    assertThat(counters.eventsDropped()).isEqualTo(1);
  }

  @Test
  void oneUpdateLargerThanTheEntryBoundStillFitsAnEmptyQueue() {
    final SinkQueue q = queue(3, 10);
    q.enqueue(new SinkOp.Report(update(30), false), 30);
    assertThat(q.queuedUpdates()).isEqualTo(1);
    assertThat(counters.updatesDropped()).isZero();
  }

  @Test
  void aLossAsksForAResyncOnlyOnceConnectedAndAResyncReplacesTheQueue() {
    final SinkQueue q = queue(1, 10);
    q.enqueue(new SinkOp.Report(update(2), false), 2);
    q.enqueue(new SinkOp.Report(update(2), false), 2); // dropped: lost
    assertThat(q.shouldStop(false)).isFalse();
    assertThat(q.resyncRequested()).as("not while unreachable").isFalse();
    assertThat(q.shouldStop(true)).isFalse();
    assertThat(q.resyncRequested()).isTrue();

    q.resync(update(5), 2);
    assertThat(q.resyncRequested()).isFalse();
    assertThat(counters.resyncs()).isEqualTo(1);
    assertThat(q.size()).isEqualTo(1 + 3); // a clear, then chunks of 2, 2 and 1
    assertThat(q.queuedUpdates()).isZero();
    assertThat(q.take()).isInstanceOf(SinkOp.Clear.class);
    q.shouldStop(true);
    assertThat(q.resyncRequested()).as("the loss was answered").isFalse();
  }

  @Test
  void aClearSupersedesEverythingQueuedAndForgetsTheLoss() {
    final SinkQueue q = queue(1, 10);
    q.enqueue(new SinkOp.Report(update(2), false), 2);
    q.enqueue(new SinkOp.Report(update(2), false), 2); // dropped: lost
    q.clearAll(7L);
    assertThat(q.size()).isEqualTo(1);
    final SinkOp head = q.take();
    assertThat(head).isInstanceOf(SinkOp.Clear.class);
    assertThat(((SinkOp.Clear) head).timestampMicros).isEqualTo(7L);
    q.shouldStop(true);
    assertThat(q.resyncRequested()).isFalse();
    q.done(head);
    assertThat(q.size()).isZero();
    assertThat(q.queuedUpdates()).isZero();
  }

  @Test
  void deliveredEvictionsLeaveWhereverTheyAreAndFailedOnesAreDroppedAfterTheLastAttempt() {
    final SinkQueue q = queue(10, 10);
    final SinkOp.Evict a = new SinkOp.Evict(new byte[] {1}, "", 0);
    final SinkOp.Evict b = new SinkOp.Evict(new byte[] {2}, "", 0);
    final SinkOp.Report r = new SinkOp.Report(update(1), false);
    q.enqueue(a, 0);
    q.enqueue(b, 0);
    q.enqueue(r, 1);
    assertThat(q.leadingEvictions(128)).containsExactly(a, b);
    assertThat(q.leadingEvictions(1)).containsExactly(a);

    q.removeDelivered(List.of(a));
    q.failed(List.of(b), 2);
    assertThat(q.size()).isEqualTo(2);
    assertThat(counters.eventsDropped()).isZero();
    q.failed(List.of(b), 2);
    assertThat(q.size()).isEqualTo(1);
    assertThat(counters.eventsDropped()).isEqualTo(1);
    assertThat(q.take()).isSameAs(r);
  }

  @Test
  void doneRemovesOnlyTheHeadItWasGiven() {
    final SinkQueue q = queue(10, 10);
    final SinkOp.Report first = new SinkOp.Report(update(2), false);
    q.enqueue(first, 2);
    q.resync(update(1), 4); // replaces first
    q.done(first);
    assertThat(q.size()).isEqualTo(2);
  }

  @Test
  void afterTheDrainDeadlineNewOpsAreDroppedAndWhatIsLeftCountsAsDropped() {
    final SinkQueue q = queue(10, 10);
    q.enqueue(new SinkOp.Report(update(3), false), 3);
    q.close(1_000L);
    assertThat(q.shouldStop(true)).as("draining").isFalse();
    clock.addAndGet(1_000L);
    assertThat(q.shouldStop(true)).isTrue();
    q.enqueue(new SinkOp.Evict(new byte[8], "", 0), 0);
    q.clearAll(0);
    assertThat(counters.eventsDropped()).isEqualTo(2);
    q.dropRemaining(1_000L);
    assertThat(counters.updatesDropped()).isEqualTo(1);
    assertThat(counters.entriesDropped()).isEqualTo(3);
    assertThat(q.size()).isZero();
    assertThat(q.queuedUpdates()).isZero();
  }
}
