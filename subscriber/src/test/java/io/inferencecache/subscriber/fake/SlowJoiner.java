package io.inferencecache.subscriber.fake;

import static org.awaitility.Awaitility.await;

import io.inferencecache.subscriber.KvEventSubscriber;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;

/** Waits out ZMQ's PUB/SUB slow joiner between a {@link FakeEngine} and a subscriber. */
public final class SlowJoiner {
  private SlowJoiner() {}

  /**
   * Republishes a no-op batch (an eviction of an unknown block) until {@code subscriber} has
   * received a message, at most {@code within}. The engine's socket is single-threaded: call from
   * the thread that publishes.
   *
   * @return false when nothing arrived in time
   */
  public static boolean awaitFirstMessage(
      final FakeEngine engine, final KvEventSubscriber subscriber, final Duration within) {
    engine.awaitSubscriber(Duration.ofSeconds(1));
    try {
      await()
          .pollInSameThread() // the engine's socket: this thread only
          .pollInterval(Duration.ofMillis(50))
          .atMost(within)
          .until(
              () -> {
                if (subscriber.source().messagesReceived() > 0) {
                  return true;
                }
                engine.publishBlockRemoved(0xDEADL);
                return false;
              });
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }
}
