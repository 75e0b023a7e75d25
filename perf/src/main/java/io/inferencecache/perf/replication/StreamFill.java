package io.inferencecache.perf.replication;

import io.inferencecache.perf.chaos.IngestLoad;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamSettings;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StreamInfo;
import io.nats.client.api.StreamInfoOptions;
import io.nats.client.api.Subject;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fills a replication stream the way subscribers do, but as fast as the broker acknowledges: one
 * {@code update} message per chain ({@link IngestLoad#update}: chain {@code k} of {@code blocks}
 * blocks held by {@code chaos-(k % replicas)}), on that engine replica's subject, with up to
 * {@value #WINDOW} publishes in flight ({@code publishAsync}). The drills' bulk writer; the
 * product's publishers ({@code StreamPublisher}) wait for each acknowledgement.
 */
final class StreamFill implements AutoCloseable {
  static final int WINDOW = 2_000;

  private final String stream;
  private final int blocks;
  private final int replicas;
  private final Connection connection;
  private final JetStream js;

  StreamFill(final String natsUrl, final String stream, final int blocks, final int replicas)
      throws IOException, InterruptedException {
    this.stream = stream;
    this.blocks = blocks;
    this.replicas = replicas;
    try (ReplicationStream s =
        ReplicationStream.connect(
            new StreamSettings(natsUrl, stream, Duration.ofSeconds(10)), "drill-setup")) {
      final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!s.connected() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      s.ensureStream();
    }
    this.connection =
        Nats.connect(
            Options.builder()
                .server(natsUrl)
                .connectionName("drill-fill")
                .maxReconnects(-1)
                .build());
    this.js = connection.jetStream();
  }

  /**
   * Publishes chains {@code from} to {@code from + count - 1} and waits for every acknowledgement.
   *
   * @return the stream sequence of the last one
   */
  long publish(final long from, final long count)
      throws InterruptedException, ExecutionException, TimeoutException {
    return publish(from, count, 1);
  }

  /**
   * Publishes {@code messages} updates of {@code chainsPerUpdate} chains each, the chains from
   * {@code from} on, all of one update held by the replica of its first chain; waits for every
   * acknowledgement.
   *
   * @return the stream sequence of the last one
   */
  long publish(final long from, final long messages, final int chainsPerUpdate)
      throws InterruptedException, ExecutionException, TimeoutException {
    final ArrayDeque<CompletableFuture<PublishAck>> inFlight = new ArrayDeque<>();
    long last = 0;
    for (long m0 = 0; m0 < messages; m0++) {
      final long k = from + m0 * chainsPerUpdate;
      final String subject =
          StreamRecord.subject(
              stream, IngestLoad.TENANT, IngestLoad.MODEL, IngestLoad.replicaOf(k, replicas));
      final CacheStateUpdate.Builder u = IngestLoad.update(k, blocks, replicas).toBuilder();
      for (int c = 1; c < chainsPerUpdate; c++) {
        u.addPrefixes(IngestLoad.update(k + c, blocks, replicas).getPrefixes(0));
      }
      final NatsMessage m =
          NatsMessage.builder()
              .subject(subject)
              .headers(new Headers().put(StreamRecord.KIND_HEADER, StreamRecord.Kind.UPDATE.wire()))
              .data(u.build().toByteArray())
              .build();
      inFlight.add(js.publishAsync(m));
      if (inFlight.size() >= WINDOW) {
        last = Math.max(last, inFlight.poll().get(30, TimeUnit.SECONDS).getSeqno());
      }
    }
    while (!inFlight.isEmpty()) {
      last = Math.max(last, inFlight.poll().get(30, TimeUnit.SECONDS).getSeqno());
    }
    return last;
  }

  /**
   * Publishes a {@code PREFIX_EVICTED} of block {@code block} of every {@code stride}-th chain from
   * {@code from} to {@code to - 1}, each on its holder's subject, and waits for the
   * acknowledgements.
   *
   * @return the stream sequence of the last one
   */
  long evict(final long from, final long to, final int stride, final int block)
      throws InterruptedException, ExecutionException, TimeoutException {
    final ArrayDeque<CompletableFuture<PublishAck>> inFlight = new ArrayDeque<>();
    long last = 0;
    for (long k = from; k < to; k += stride) {
      final String replica = IngestLoad.replicaOf(k, replicas);
      final byte[] body =
          CacheEvent.newBuilder()
              .setType(CacheEvent.Type.PREFIX_EVICTED)
              .setReplicaId(replica)
              .setModelId(IngestLoad.MODEL)
              .setTenantId(IngestLoad.TENANT)
              .setPrefixHash(IngestLoad.hash(k, block))
              .build()
              .toByteArray();
      inFlight.add(
          js.publishAsync(
              NatsMessage.builder()
                  .subject(
                      StreamRecord.subject(stream, IngestLoad.TENANT, IngestLoad.MODEL, replica))
                  .headers(
                      new Headers().put(StreamRecord.KIND_HEADER, StreamRecord.Kind.EVENT.wire()))
                  .data(body)
                  .build()));
    }
    for (CompletableFuture<PublishAck> f : inFlight) {
      last = Math.max(last, f.get(30, TimeUnit.SECONDS).getSeqno());
    }
    return last;
  }

  /** Messages the stream holds on {@code subject} now. */
  long messagesOn(final String subject) throws IOException, JetStreamApiException {
    final StreamInfo info =
        connection
            .jetStreamManagement()
            .getStreamInfo(stream, StreamInfoOptions.filterSubjects(subject));
    final List<Subject> subjects = info.getStreamState().getSubjects();
    return subjects == null ? 0 : subjects.stream().mapToLong(Subject::getCount).sum();
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
