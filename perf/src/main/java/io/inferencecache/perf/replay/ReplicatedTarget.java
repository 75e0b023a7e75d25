package io.inferencecache.perf.replay;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamPublisher;
import io.inferencecache.replication.StreamReader;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamSettings;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.replication.ReplicatedIngest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The replay through the replication stream: every report and eviction is published (as the
 * subscriber does, one subject per simulated engine replica) to a fresh JetStream stream on {@code
 * --nats-url}; {@code --server-replicas} in-process indexes each read the whole stream with their
 * own connection and consumer ({@link StreamReader} → {@link ReplicatedIngest}), and lookups go
 * round-robin over them. {@link #sync} publishes the queued evictions and waits until every replica
 * applied everything published. Lag is publish call → applied on a replica (same JVM clock), per
 * replica and message.
 */
final class ReplicatedTarget implements ReplayTarget {
  private final ReplayNames names;
  private final String stream;
  private final ReplicationStream publisherStream;
  private final StreamPublisher publisher;
  private final List<CacheIndex> indexes = new ArrayList<>();
  private final List<EngineTarget> lookups = new ArrayList<>();
  private final List<ReplicationStream> readerStreams = new ArrayList<>();
  private final List<StreamReader> readers = new ArrayList<>();
  private final Histogram[] lag;
  private long[] publishedAt = new long[1 << 16];
  private volatile long lastPublished;
  private final EvictionQueue pending = new EvictionQueue();
  private int next;
  private final long[][] recent = new long[2048][];
  private long looked;

  ReplicatedTarget(
      final IndexConfig config, final ReplayNames names, final String natsUrl, final int replicas)
      throws Exception {
    this.names = names;
    this.stream = "replay-" + System.currentTimeMillis();
    final StreamSettings settings = new StreamSettings(natsUrl, stream, Duration.ofSeconds(5));
    this.publisherStream = ReplicationStream.connect(settings, "replay-publisher");
    awaitConnected(publisherStream);
    publisherStream.ensureStream();
    this.publisher = new StreamPublisher(publisherStream);
    this.lag = new Histogram[replicas];
    for (int k = 0; k < replicas; k++) {
      final CacheIndex index = CacheIndex.open(config);
      index.start();
      indexes.add(index);
      lookups.add(new EngineTarget(index, names));
      final ReplicatedIngest ingest =
          new ReplicatedIngest(
              index,
              new IngestRules(System::nanoTime),
              null,
              System::currentTimeMillis,
              System::nanoTime);
      final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      lag[k] = h;
      final ReplicationStream rs = ReplicationStream.connect(settings, "replay-server-" + k);
      readerStreams.add(rs);
      final StreamReader reader =
          new StreamReader(
              rs,
              index::appliedSequence,
              (seq, kind, body, stored) -> {
                ingest.apply(seq, kind, body, stored);
                final long at = publishedAt(seq);
                if (at != 0) {
                  h.recordValue(Math.min(h.getHighestTrackableValue(), System.nanoTime() - at));
                }
              });
      readers.add(reader);
      reader.start();
    }
    // Every replica's consumer exists before the first publish: lag counts steady state only.
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (StreamReader r : readers) {
      while (!r.reading()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("replica consumers not created in 60 s");
        }
        LockSupport.parkNanos(1_000_000);
      }
    }
  }

  private static void awaitConnected(final ReplicationStream s) {
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!s.connected()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("broker not reachable: " + s.settings().natsUrl());
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  private synchronized long publishedAt(final long seq) {
    return seq < publishedAt.length ? publishedAt[(int) seq] : 0;
  }

  private void published(final long seq, final long at) {
    synchronized (this) {
      if (seq >= publishedAt.length) {
        publishedAt = Arrays.copyOf(publishedAt, (int) Math.max(seq + 1, publishedAt.length * 2L));
      }
      publishedAt[(int) seq] = at;
    }
  }

  /**
   * Publishes one record, its publish time noted first under the sequence it will get (this is the
   * fresh stream's only publisher), so a replica that applies it before the acknowledgement is back
   * still finds it.
   */
  private void publish(final String subject, final StreamRecord.Kind kind, final byte[] body) {
    final long expected = lastPublished + 1;
    final long at = System.nanoTime();
    published(expected, at);
    final long seq = publisher.publish(subject, kind, body, false);
    if (seq != expected) {
      published(seq, at);
    }
    lastPublished = seq;
  }

  private String subject(final int replica) {
    return StreamRecord.subject(stream, ReplayNames.TENANT, names.model, names.replicas[replica]);
  }

  @Override
  public void lookup(final long[] chain, final Hint out) {
    recent[(int) (looked++ % recent.length)] = chain;
    lookups.get(next).lookup(chain, out);
    next = (next + 1) % lookups.size();
  }

  @Override
  public void report(final int replica, final long[] chain) {
    final byte[] body = GrpcTarget.chainUpdate(names, replica, chain).toByteArray();
    publish(subject(replica), StreamRecord.Kind.UPDATE, body);
  }

  @Override
  public void evict(final int replica, final long key) {
    pending.add(replica, key);
  }

  @Override
  public void sync() {
    for (int i = 0; i < pending.size(); i++) {
      final byte[] body =
          CacheEvent.newBuilder()
              .setType(CacheEvent.Type.PREFIX_EVICTED)
              .setReplicaId(names.replicas[pending.replica(i)])
              .setModelId(names.model)
              .setTenantId(ReplayNames.TENANT)
              .setPrefixHash(
                  com.google.protobuf.ByteString.copyFrom(MooncakeTraceFile.hashOf(pending.key(i))))
              .build()
              .toByteArray();
      publish(subject(pending.replica(i)), StreamRecord.Kind.EVENT, body);
    }
    pending.clear();
    final long target = lastPublished;
    for (CacheIndex index : indexes) {
      while (index.appliedSequence() < target) {
        LockSupport.parkNanos(50_000);
      }
    }
  }

  @Override
  public boolean evictionsPending() {
    return pending.size() > 0;
  }

  @Override
  public Map<String, Object> figures() {
    final Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    for (Histogram h : lag) {
      all.add(h);
    }
    final Map<String, Object> r = new LinkedHashMap<>();
    r.put("serverReplicas", indexes.size());
    r.put("streamMessages", lastPublished);
    r.put("lagMeasuredAs", "publish call to applied on a replica, every replica and message");
    r.put("lagCount", all.getTotalCount());
    r.put("lagP50Ms", all.getValueAtPercentile(50) / 1e6);
    r.put("lagP99Ms", all.getValueAtPercentile(99) / 1e6);
    r.put("lagMaxMs", all.getMaxValue() / 1e6);
    final List<Long> entries = new ArrayList<>();
    for (CacheIndex index : indexes) {
      entries.add(index.totalEntries());
    }
    r.put("entriesPerReplica", entries);
    long alarms = 0;
    long slow = 0;
    for (ReplicationStream s : readerStreams) {
      alarms += s.heartbeatAlarms();
      slow += s.slowConsumers();
    }
    r.put("heartbeatAlarms", alarms);
    r.put("slowConsumers", slow);
    r.put("digestChains", Math.min(looked, recent.length));
    r.put("digestEqualOnEveryReplica", digestsEqual());
    return r;
  }

  /** Whether every replica answers the last looked-up chains with the same holders and depths. */
  private boolean digestsEqual() {
    final Hint h = new Hint();
    final List<String> first = new ArrayList<>();
    for (int k = 0; k < lookups.size(); k++) {
      final List<String> answers = new ArrayList<>();
      for (long[] chain : recent) {
        if (chain == null) {
          continue;
        }
        lookups.get(k).lookup(chain, h);
        final StringBuilder b = new StringBuilder(h.reasonCode);
        final List<String> holders = new ArrayList<>();
        for (int i = 0; i < h.size; i++) {
          holders.add(h.replica[i] + ":" + h.matchedBlocks[i]);
        }
        holders.sort(null);
        answers.add(b.append(holders).toString());
      }
      if (k == 0) {
        first.addAll(answers);
      } else if (!answers.equals(first)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public long offHeapBytes() {
    return indexes.get(0).footprintBytes();
  }

  @Override
  public long totalEntries() {
    return indexes.get(0).totalEntries();
  }

  @Override
  public long totalKeys() {
    return indexes.get(0).totalKeys();
  }

  @Override
  public String describe() {
    return "replicated: JetStream stream "
        + stream
        + " → "
        + indexes.size()
        + " in-process CacheIndex replicas, lookups round-robin";
  }

  @Override
  public void close() {
    for (StreamReader r : readers) {
      r.close();
    }
    for (ReplicationStream s : readerStreams) {
      s.close();
    }
    publisherStream.close();
    for (CacheIndex index : indexes) {
      index.close();
    }
  }
}
