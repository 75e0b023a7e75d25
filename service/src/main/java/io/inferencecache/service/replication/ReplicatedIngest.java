package io.inferencecache.service.replication;

import com.google.protobuf.InvalidProtocolBufferException;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.replication.StreamReader;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.service.ingest.IngestMapper;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.log.LogRateLimiter;
import io.inferencecache.service.streams.StreamingFeeds;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies replication-stream messages to the index, each with its stream sequence in the same
 * writer critical section ({@link CacheIndex#ingest(IngestUpdate, long)}): an {@code update} as a
 * ReportCacheState message, an {@code event} as a PublishEvent call, a {@code state} as {@code
 * ALL_CLEARED} of its replica followed by the update. {@link IngestRules} decide what is dropped,
 * exactly as on the direct path. A message that cannot be read (unknown kind, bad protobuf) is
 * skipped, counted and logged (rate-limited), and its sequence is still recorded. Called by the
 * stream reader's one thread.
 */
public final class ReplicatedIngest implements StreamReader.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicatedIngest.class);

  private final CacheIndex index;
  private final IngestRules rules;
  private final StreamingFeeds feeds;
  private final LongSupplier epochMillis;
  private final LogRateLimiter log;
  private final LongAdder applied = new LongAdder();
  private final LongAdder unreadable = new LongAdder();
  private final AtomicLong lagMillis = new AtomicLong();

  /**
   * @param feeds the streaming feeds told about applied content, or null
   * @param epochMillis wall clock for the lag (broker store time to applied)
   */
  public ReplicatedIngest(
      final CacheIndex index,
      final IngestRules rules,
      final StreamingFeeds feeds,
      final LongSupplier epochMillis,
      final LongSupplier nanoTime) {
    this.index = index;
    this.rules = rules;
    this.feeds = feeds;
    this.epochMillis = epochMillis;
    this.log = new LogRateLimiter(10, 10_000_000_000L, nanoTime);
  }

  @Override
  public void apply(
      final long sequence,
      final StreamRecord.Kind kind,
      final byte[] body,
      final long storedEpochMillis) {
    try {
      if (kind == null) {
        skip(sequence, "no known " + StreamRecord.KIND_HEADER + " header");
        return;
      }
      switch (kind) {
        case UPDATE -> update(sequence, CacheStateUpdate.parseFrom(body), false);
        case STATE -> update(sequence, CacheStateUpdate.parseFrom(body), true);
        case EVENT -> event(sequence, CacheEvent.parseFrom(body));
      }
    } catch (InvalidProtocolBufferException e) {
      skip(sequence, kind + " body is not protobuf: " + e.getMessage());
      return;
    }
    applied.increment();
    lagMillis.set(Math.max(0, epochMillis.getAsLong() - storedEpochMillis));
  }

  private void update(final long sequence, final CacheStateUpdate u, final boolean fullState) {
    if (fullState) {
      final CacheEvent clear =
          CacheEvent.newBuilder()
              .setType(CacheEvent.Type.ALL_CLEARED)
              .setReplicaId(u.getReplicaId())
              .setModelId(u.getModelId())
              .setTenantId(u.getTenantId())
              .build();
      if (rules.admitEvent(clear)) {
        index.applyEvent(IngestMapper.toEvent(clear));
        if (feeds != null) {
          feeds.onEvent(clear);
        }
      }
    }
    final IngestUpdate admitted = rules.admit(u);
    if (admitted == null) {
      index.skipSequence(sequence);
      return;
    }
    index.ingest(admitted, sequence);
    if (feeds != null) {
      feeds.onIngested(u);
    }
  }

  private void event(final long sequence, final CacheEvent e) {
    if (!rules.admitEvent(e)) {
      index.skipSequence(sequence);
      return;
    }
    index.applyEvent(IngestMapper.toEvent(e), sequence);
    if (feeds != null) {
      feeds.onEvent(e);
    }
  }

  private void skip(final long sequence, final String why) {
    index.skipSequence(sequence);
    unreadable.increment();
    final long suppressed = log.acquire();
    if (suppressed != LogRateLimiter.SUPPRESS) {
      LOG.warn(
          "event=replication_message_skipped sequence={} reason=\"{}\" suppressed_lines={}",
          sequence,
          why,
          suppressed);
    }
  }

  /** Messages applied (dropped content included: the rules counted it). */
  public long applied() {
    return applied.sum();
  }

  /** Messages skipped because they could not be read. */
  public long unreadable() {
    return unreadable.sum();
  }

  /** Broker store time to applied, of the last applied message, in milliseconds. */
  public long lastLagMillis() {
    return lagMillis.get();
  }
}
