package io.inferencecache.replication;

import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.nats.client.support.NatsJetStreamConstants;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes records to the replication stream and waits for the broker's acknowledgement (bounded
 * by {@link StreamSettings#publishTimeout()}). Every message carries a {@code Nats-Msg-Id} of this
 * publisher's random id and a counter, so a publish the caller retries after a lost acknowledgement
 * is stored once. Thread-safe; callers keep per-subject order by publishing one subject from one
 * thread.
 */
public final class StreamPublisher {
  private final ReplicationStream stream;
  private volatile JetStream js;
  private final String idPrefix = UUID.randomUUID() + "-";
  private final AtomicLong counter = new AtomicLong();

  /** A publisher on {@code stream}, connected or not yet. */
  public StreamPublisher(final ReplicationStream stream) {
    this.stream = stream;
  }

  /** Whether the broker connection is up now (a publish may still be refused). */
  public boolean connected() {
    return stream.connected();
  }

  /**
   * Runs {@code r} after every (re)connection of the broker connection; see {@link
   * ReplicationStream#whenConnected}.
   */
  public void whenConnected(final Runnable r) {
    stream.whenConnected(r);
  }

  /** The JetStream context, made on the first publish after the first connection. */
  private JetStream jetStream() {
    JetStream j = js;
    if (j == null) {
      try {
        j = stream.connection().jetStream(stream.jetStreamOptions());
      } catch (IOException e) {
        throw new StreamUnavailableException("JetStream unavailable on " + stream.name(), e);
      }
      js = j;
    }
    return j;
  }

  /**
   * Publishes one record.
   *
   * @param subject from {@link StreamRecord#subject}
   * @param rollup true for the first message of a full state ({@code Nats-Rollup: sub})
   * @return the stream sequence the broker stored it at
   * @throws StreamUnavailableException when the broker is not connected, refuses, or does not
   *     acknowledge in time (the message may or may not be stored: a resync repairs either way)
   */
  public long publish(
      final String subject, final StreamRecord.Kind kind, final byte[] body, final boolean rollup) {
    if (!stream.connected()) {
      throw new StreamUnavailableException("broker not connected (stream " + stream.name() + ")");
    }
    final String id = idPrefix + counter.incrementAndGet();
    final Headers headers = new Headers().put(StreamRecord.KIND_HEADER, kind.wire());
    if (rollup) {
      headers.put(NatsJetStreamConstants.ROLLUP_HDR, NatsJetStreamConstants.ROLLUP_HDR_SUBJECT);
    }
    final NatsMessage message =
        NatsMessage.builder().subject(subject).headers(headers).data(body).build();
    try {
      final PublishAck ack =
          jetStream()
              .publish(
                  message,
                  PublishOptions.builder()
                      .messageId(id)
                      .expectedStream(stream.name())
                      .streamTimeout(stream.settings().publishTimeout())
                      .build());
      return ack.getSeqno();
    } catch (IOException | JetStreamApiException | IllegalStateException e) {
      throw new StreamUnavailableException(
          "publish to " + stream.name() + " failed: " + e.getMessage(), e);
    }
  }
}
