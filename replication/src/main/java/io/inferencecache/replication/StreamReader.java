package io.inferencecache.replication;

import io.nats.client.ConsumeOptions;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.nats.client.StreamContext;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.NatsJetStreamMetaData;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the whole replication stream in stream-sequence order, starting after the sequence the
 * caller last applied, with its own ordered consumer (ephemeral, no acknowledgements; the client
 * recreates it after a gap or a broker restart, from the last sequence it delivered). Messages are
 * handed to one {@link Handler} on one thread, in order.
 *
 * <p>Catch-up: when the consumer is created the reader notes the stream's last sequence; {@link
 * #caughtUp()} turns true once a message at or beyond it was handled, or at once when there is
 * nothing to read. While the broker is down the reader retries every {@value #RETRY_MILLIS} ms.
 * When the stored sequence is beyond the stream's last one (the stream was recreated), the reader
 * reads the stream from its start.
 *
 * <p>Reconnection: when the connection comes back (a broker restart, a network cut) the reader
 * replaces its consumer at once with a new one starting after the last sequence it handled (or the
 * applied one, when larger), instead of waiting for the client to notice missed heartbeats (three
 * idle heartbeats of half {@link #PULL_EXPIRES_MILLIS} after the connection is back). Messages the
 * old consumer still delivers are dropped, so the handler sees every sequence once and in order.
 *
 * <p>Stall watchdog: every {@value #WATCH_MILLIS} ms, when nothing was handled for {@value
 * #STALL_MILLIS} ms, the reader asks the broker for the stream's last sequence; if the stream holds
 * more than was handled, the consumer is replaced the same way ({@code
 * event=replication_reader_stalled}). That bounds the stall of a consumer left without a pull
 * request to about {@value #STALL_MILLIS} ms instead of the client's heartbeat alarm.
 */
public final class StreamReader implements AutoCloseable {
  /** Pause between attempts to create the consumer. */
  public static final long RETRY_MILLIS = 500;

  /**
   * Lifetime of one pull request. The broker's idle heartbeat is half of it, and the client
   * recreates a consumer that got neither a message nor a heartbeat for three heartbeat periods (6
   * s). A consumer left without a pull request (seen with nats-server 2.9.10 on a replica that
   * falls idle between bursts, logged as {@code event=replication_heartbeat_alarm}) only resumes
   * then, an 8 s stall. Shorter pulls shorten that stall but make it more frequent (1 s pulls: 2 s
   * stalls even at trace pace, where 4 s pulls showed none; perf/README.md), so 4 s is kept.
   */
  public static final long PULL_EXPIRES_MILLIS = 4_000;

  /** How often the stall watchdog looks. */
  public static final long WATCH_MILLIS = 1_000;

  /** Time without a handled message, while the stream holds more, after which it is a stall. */
  public static final long STALL_MILLIS = 2_000;

  private static final Logger LOG = LoggerFactory.getLogger(StreamReader.class);

  /** Applies one stream message; called on the reader's one delivery thread. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param sequence the message's stream sequence (increasing)
     * @param kind the record kind, or {@code null} when the header is missing or unknown (the
     *     handler should still record the sequence as applied)
     * @param body the protobuf body
     * @param storedEpochMillis when the broker stored the message
     */
    void apply(long sequence, StreamRecord.Kind kind, byte[] body, long storedEpochMillis);
  }

  private final ReplicationStream stream;
  private final LongSupplier appliedSequence;
  private final Handler handler;
  private final ScheduledExecutorService opener =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            final Thread t = new Thread(r, "replication-reader-open");
            t.setDaemon(true);
            return t;
          });
  private final Object applying = new Object();
  private volatile MessageConsumer consumer;
  private volatile long consumerConnection;
  private volatile int generation;
  private volatile long consumersCreated;
  private volatile long target = Long.MAX_VALUE;
  private volatile boolean caughtUp;
  private volatile boolean closed;
  private volatile long lastSequence;
  private volatile long lastProgressNanos = System.nanoTime();
  private volatile long stallsRecovered;

  /**
   * @param appliedSequence the last sequence already applied (0: none), read when the consumer is
   *     created
   */
  public StreamReader(
      final ReplicationStream stream, final LongSupplier appliedSequence, final Handler handler) {
    this.stream = stream;
    this.appliedSequence = appliedSequence;
    this.handler = handler;
  }

  /** Starts reading as soon as (and whenever) the broker is connected. */
  public void start() {
    stream.whenConnected(() -> opener.execute(() -> open(false)));
    opener.scheduleWithFixedDelay(this::watch, WATCH_MILLIS, WATCH_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Replaces a consumer that handed over nothing for a while although the stream holds more. */
  private void watch() {
    if (closed
        || consumer == null
        || !stream.connected()
        || System.nanoTime() - lastProgressNanos < TimeUnit.MILLISECONDS.toNanos(STALL_MILLIS)) {
      return;
    }
    final long last;
    try {
      last = stream.ensureStream().getStreamState().getLastSequence();
    } catch (IOException | RuntimeException e) {
      return; // the broker is going away: the reconnection replaces the consumer
    }
    final long handled = Math.max(lastSequence, appliedSequence.getAsLong());
    if (last > handled) {
      LOG.warn(
          "event=replication_reader_stalled stream={} handled={} last={}: replacing the consumer",
          stream.name(),
          handled,
          last);
      stallsRecovered++;
      open(true);
    }
  }

  /**
   * Creates the consumer, or replaces the current one after a reconnection or, with {@code
   * stalled}, a stall. Runs on the opener thread only.
   */
  private void open(final boolean stalled) {
    if (closed) {
      return;
    }
    final MessageConsumer previous = consumer;
    if (previous != null) {
      if (!stalled && stream.connections() <= consumerConnection) {
        return;
      }
      // The connection came back since this consumer was made, or it stalled: replace it now.
      closeQuietly(previous);
      consumer = null;
    }
    try {
      final long connectionNow = stream.connections();
      // From here on the old consumer's deliveries are dropped, so the applied sequence read below
      // is final for it and the new consumer starts right after it.
      final int gen;
      synchronized (applying) {
        gen = ++generation;
      }
      final StreamInfo info = stream.ensureStream();
      final long last = info.getStreamState().getLastSequence();
      // After a reconnection: what this reader handed over is applied, whatever the supplier says.
      long applied = Math.max(appliedSequence.getAsLong(), lastSequence);
      if (applied > last) {
        LOG.warn(
            "event=replication_stream_behind stream={} applied={} last={}: reading it from the start",
            stream.name(),
            applied,
            last);
        applied = 0;
        lastSequence = 0;
      }
      target = last;
      if (applied >= last) {
        caughtUp = true;
      }
      final OrderedConsumerConfiguration cfg =
          applied == 0
              ? new OrderedConsumerConfiguration().deliverPolicy(DeliverPolicy.All)
              : new OrderedConsumerConfiguration()
                  .deliverPolicy(DeliverPolicy.ByStartSequence)
                  .startSequence(applied + 1);
      final StreamContext sc = stream.connection().getStreamContext(stream.name());
      consumer =
          sc.createOrderedConsumer(cfg)
              .consume(
                  ConsumeOptions.builder().expiresIn(PULL_EXPIRES_MILLIS).build(),
                  msg -> onMessage(gen, msg));
      consumerConnection = connectionNow;
      consumersCreated++;
      lastProgressNanos = System.nanoTime();
      LOG.info(
          "event=replication_reader_started stream={} from={} catch_up_to={}",
          stream.name(),
          applied + 1,
          last);
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      LOG.warn(
          "event=replication_reader_retry stream={} reason=\"{}\"", stream.name(), e.toString());
      if (!closed) {
        opener.schedule(() -> open(false), RETRY_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }

  private void onMessage(final int gen, final Message msg) {
    synchronized (applying) {
      if (gen == generation) {
        handle(msg);
      }
    }
  }

  private void handle(final Message msg) {
    final NatsJetStreamMetaData meta = msg.metaData();
    final long seq = meta.streamSequence();
    final String kindHeader =
        msg.getHeaders() == null ? null : msg.getHeaders().getFirst(StreamRecord.KIND_HEADER);
    try {
      handler.apply(
          seq,
          StreamRecord.Kind.of(kindHeader),
          msg.getData(),
          meta.timestamp().toInstant().toEpochMilli());
    } catch (RuntimeException e) {
      LOG.error("event=replication_apply_failed sequence={} reason=\"{}\"", seq, e.toString());
    }
    lastSequence = seq;
    lastProgressNanos = System.nanoTime();
    if (seq >= target || meta.pendingCount() == 0) {
      caughtUp = true;
    }
  }

  /** Whether the reader has applied everything the stream held when it started. */
  public boolean caughtUp() {
    return caughtUp;
  }

  /** Whether the consumer exists (messages published from now on reach this reader). */
  public boolean reading() {
    return consumer != null;
  }

  /** Consumers this reader created: 1 after the first, one more per reconnection or retry. */
  public long consumersCreated() {
    return consumersCreated;
  }

  /** Stalled consumers the watchdog replaced. */
  public long stallsRecovered() {
    return stallsRecovered;
  }

  /** The current consumer, or null (tests simulate a stall by stopping it). */
  MessageConsumer consumer() {
    return consumer;
  }

  /** The last stream sequence handed to the handler by this reader (0: none yet). */
  public long lastSequence() {
    return lastSequence;
  }

  /** Stops the consumer and the retries. */
  @Override
  public void close() {
    closed = true;
    opener.shutdownNow();
    final MessageConsumer c = consumer;
    if (c != null) {
      closeQuietly(c);
    }
  }

  private static void closeQuietly(final MessageConsumer c) {
    try {
      c.close();
    } catch (Exception e) {
      LOG.debug("closing the replication consumer: {}", e.toString());
    }
  }
}
