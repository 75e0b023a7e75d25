package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.ServeProcess;
import io.inferencecache.natslocal.NatsServerExtension;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamSettings;
import io.inferencecache.servelocal.ServeChild;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.GrpcUpdateSink;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several real {@code serve} processes sharing one view through a real nats-server 2.9 JetStream
 * stream: the subscriber's publisher ({@link JetStreamUpdateSink}) writes, every replica reads the
 * whole stream with its own consumer.
 */
@Timeout(420)
class ReplicationIT {
  private static final Duration READY = Duration.ofSeconds(120);
  private static final String STREAM = "ic-it";

  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();
  @TempDir Path dir;

  private final List<ServeChild> serves = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    for (ServeChild s : serves) {
      s.close();
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private ServeChild serve(final String name, final boolean persisted) {
    return serve(name, persisted, "60s");
  }

  private ServeChild serve(final String name, final boolean persisted, final String catchUp) {
    final String yaml =
        "replication:\n"
            + "  natsUrl: "
            + nats.url()
            + "\n"
            + "  stream: "
            + STREAM
            + "\n"
            + "  catchUpTimeout: "
            + catchUp
            + "\n"
            + "index:\n"
            + "  maxEntries: 20000\n"
            + (persisted ? "  persistenceFile: " + dir.resolve(name + "/index.dat") + "\n" : "");
    final ServeChild s = ServeProcess.of(dir.resolve(name), yaml);
    serves.add(s);
    return s.start();
  }

  private JetStreamUpdateSink sink(final String replica) {
    final SubscriberConfig config =
        SubscriberConfig.builder()
            .replicaId(replica)
            .modelId("m")
            .tenantId("t")
            .replicationNatsUrl(nats.url())
            .replicationStream(STREAM)
            .build();
    final JetStreamUpdateSink sink = JetStreamUpdateSink.connect(config);
    closeables.add(sink);
    // connected, and the connection's resync request made (the connection is made in the
    // background)
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.connections() > 0);
    return sink;
  }

  private static byte[] hash(final int i) {
    return ByteBuffer.allocate(8).putLong(0x5EED_0000_0000L + i).array();
  }

  private static SubscriberUpdate update(final String replica, final int from, final int count) {
    final List<PrefixRecord> prefixes = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      prefixes.add(new PrefixRecord(hash(i), 64 + 16 * (i % 8), "", PrefixRecord.TIER_T1));
    }
    return new SubscriberUpdate(replica, "m", "t", "vllm", 0, prefixes);
  }

  private static String answer(final ServeChild s, final int i) {
    final LookupRouteResponse r =
        InferenceCacheGrpc.newBlockingStub(s.channel())
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .lookupRoute(
                LookupRouteRequest.newBuilder()
                    .setTenantId("t")
                    .setModelId("m")
                    .setHashScheme("vllm")
                    .setPrefixHash(ByteString.copyFrom(hash(i)))
                    .build());
    return r.getReasonCode()
        + r.getReplicaScoresList().stream()
            .map(ReplicaScore::getReplicaId)
            .sorted()
            .collect(Collectors.joining(",", "[", "]"));
  }

  /**
   * Keys and holders over the hash universe of the test (no LFU counts, no scores; a miss is a miss
   * whatever replica the affinity fallback names, since that depends on every replica known).
   */
  private static List<String> digest(final ServeChild s, final int universe) {
    final List<String> out = new ArrayList<>(universe);
    for (int i = 0; i < universe; i++) {
      final String a = answer(s, i);
      out.add(i + "=" + (a.startsWith("PREFIX_MATCH") ? a : "miss"));
    }
    return out;
  }

  /** LookupRoute in a loop on every given replica until closed; counts calls that failed. */
  private static final class BackgroundLookups implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Thread thread;

    BackgroundLookups(final List<ServeChild> replicas, final int universe) {
      thread =
          new Thread(
              () -> {
                for (int n = 0; running.get(); n++) {
                  try {
                    answer(replicas.get(n % replicas.size()), n % universe);
                    calls.incrementAndGet();
                  } catch (RuntimeException e) {
                    errors.incrementAndGet();
                  }
                }
              },
              "background-lookups");
      thread.start();
    }

    @Override
    public void close() {
      running.set(false);
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private long lastStreamSequence() throws Exception {
    try (ReplicationStream s =
        ReplicationStream.connect(
            new StreamSettings(nats.url(), STREAM, Duration.ofSeconds(2)), "it")) {
      await().atMost(Duration.ofSeconds(10)).until(s::connected);
      return s.ensureStream().getStreamState().getLastSequence();
    }
  }

  private static void awaitApplied(final ServeChild s, final long sequence) {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> s.metric("inferencecache_replication_applied_sequence") >= sequence);
  }

  @Test
  void twoReplicasConvergeFromOneStreamAndAKilledReplicaResumesAfterItsStoredSequence()
      throws Exception {
    final ServeChild a = serve("a", true);
    final ServeChild b = serve("b", false);
    a.awaitReady(READY);
    b.awaitReady(READY);

    final JetStreamUpdateSink engine0 = sink("engine-0");
    engine0.resync(update("engine-0", 0, 0)); // the reporter's first window: an empty full state
    for (int u = 0; u < 20; u++) {
      engine0.report(update("engine-0", u * 10, 10));
    }
    for (int i = 0; i < 5; i++) {
      engine0.prefixEvicted(hash(i), "", 0);
    }
    // ReportCacheState sent straight to replica a is forwarded to the stream: b gets it too.
    CacheStateReports.send(
        a.channel(),
        10,
        CacheStateReports.chain(
            "engine-1", "m", "t", 8, i -> ByteString.copyFrom(hash(300 + i)))); // 128 tokens

    final long last = lastStreamSequence();
    assertThat(last).isEqualTo(1 + 20 + 5 + 1);
    awaitApplied(a, last);
    awaitApplied(b, last);
    final List<String> digestA = digest(a, 310);
    assertThat(digest(b, 310)).isEqualTo(digestA);
    // engine-0: 200 reported, 5 evicted; engine-1: the 5 of its 8 blocks at 64 tokens or more
    // (shorter prefixes are below the default minimum prefix and answer with a fallback).
    assertThat(digestA)
        .filteredOn(d -> d.startsWith("PREFIX_MATCH", d.indexOf('=') + 1))
        .hasSize(195 + 5);
    assertThat(answer(a, 2)).doesNotStartWith("PREFIX_MATCH"); // evicted
    assertThat(answer(a, 7)).endsWith("[engine-0]");
    assertThat(answer(b, 307)).endsWith("[engine-1]");
    assertThat(a.metric("inferencecache_replication_forwarded_total")).isEqualTo(1);

    // kill -9 the persisted replica, let the stream move on, restart it on the same file.
    final long stored = (long) a.metric("inferencecache_replication_applied_sequence");
    a.kill();
    for (int u = 20; u < 30; u++) {
      engine0.report(update("engine-0", u * 10, 10));
    }
    final long after = lastStreamSequence();
    awaitApplied(b, after);
    a.start().awaitReady(READY);
    assertThat(a.log())
        .contains("event=replication_reader_started stream=" + STREAM + " from=" + (stored + 1));
    awaitApplied(a, after);
    assertThat(digest(a, 310)).isEqualTo(digest(b, 310));
    assertThat(answer(a, 295)).endsWith("[engine-0]");

    // engine-0's subscriber restarts under lookups and ingest: the new one's full state rolls the
    // subject up; both replicas drop what the old one reported and answer alike.
    final BackgroundLookups lookups = new BackgroundLookups(List.of(a, b), 310);
    closeables.add(lookups);
    engine0.close();
    final JetStreamUpdateSink restarted = sink("engine-0");
    CacheStateReports.send(
        b.channel(),
        10,
        CacheStateReports.chain("engine-1", "m", "t", 8, i -> ByteString.copyFrom(hash(310 + i))));
    restarted.resync(update("engine-0", 500, 30));
    final long rolled = lastStreamSequence();
    awaitApplied(a, rolled);
    awaitApplied(b, rolled);
    lookups.close();
    assertThat(lookups.errors).hasValue(0);
    assertThat(lookups.calls.get()).isPositive();
    assertThat(answer(a, 7)).doesNotStartWith("PREFIX_MATCH"); // the old subscriber's report
    assertThat(answer(b, 295)).doesNotStartWith("PREFIX_MATCH");
    assertThat(answer(a, 515)).isEqualTo("PREFIX_MATCH[engine-0]");
    assertThat(answer(b, 317)).isEqualTo("PREFIX_MATCH[engine-1]");
    assertThat(digest(a, 530)).isEqualTo(digest(b, 530));
  }

  @Test
  void withTheBrokerDownLookupsAnswerFromLocalStateAndReplicationResumesAfterItsRestart()
      throws Exception {
    final ServeChild a = serve("a", false);
    final ServeChild b = serve("b", false);
    a.awaitReady(READY);
    b.awaitReady(READY);
    final JetStreamUpdateSink engine0 = sink("engine-0");
    engine0.resync(update("engine-0", 0, 50));
    final long first = lastStreamSequence();
    awaitApplied(a, first);
    awaitApplied(b, first);

    final BackgroundLookups background = new BackgroundLookups(List.of(a, b), 50);
    closeables.add(background);
    nats.server().kill();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> a.metric("inferencecache_replication_connected") == 0);
    int errors = 0;
    int matches = 0;
    for (int n = 0; n < 200; n++) {
      try {
        final ServeChild s = n % 2 == 0 ? a : b;
        if (answer(s, n % 50).equals("PREFIX_MATCH[engine-0]")) {
          matches++;
        }
      } catch (RuntimeException e) {
        errors++;
      }
    }
    assertThat(errors).isZero();
    assertThat(matches).isEqualTo(200);
    // A direct report while the broker is down is applied on the replica it reached, and counted;
    // the subscriber's gRPC sink keeps its ReportCacheState call open.
    final GrpcUpdateSink direct =
        GrpcUpdateSink.builder()
            .target(a.grpcTarget())
            .identity("engine-2", "m", "t", "vllm")
            .build();
    closeables.add(direct);
    direct.report(update("engine-2", 400, 8));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> answer(a, 407).equals("PREFIX_MATCH[engine-2]"));
    assertThat(answer(b, 407)).doesNotContain("engine-2");
    assertThat(a.metric("inferencecache_replication_applied_locally_total")).isEqualTo(1);
    assertThat(a.metric("inferencecache_replication_resyncs_pending")).isEqualTo(1);
    // A replica started while the broker is down starts: ready after its catch-up bound, answering.
    final ServeChild c = serve("c", false, "2s");
    c.awaitReady(READY);
    assertThat(answer(c, 0)).doesNotStartWith("PREFIX_MATCH");
    assertThat(c.metric("inferencecache_replication_connected")).isZero();

    nats.server().start();
    await().atMost(Duration.ofSeconds(30)).until(engine0::resyncRequested);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> engine0.resync(update("engine-0", 100, 20)));
    // Replica a asks engine-2 to resync (it ends the open call); the sink's resync, which the
    // reporter would make from its own index, reaches every replica through the stream.
    await().atMost(Duration.ofSeconds(30)).until(direct::resyncRequested);
    assertThat(a.metric("inferencecache_replication_resync_requests_total")).isEqualTo(1);
    assertThat(a.metric("inferencecache_replication_resyncs_pending")).isZero();
    assertThat(a.log()).contains("event=replication_resync_requested stream=" + STREAM);
    direct.resync(update("engine-2", 400, 8));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> answer(b, 407).equals("PREFIX_MATCH[engine-2]"));
    final long resumed = lastStreamSequence();
    awaitApplied(a, resumed);
    awaitApplied(b, resumed);
    awaitApplied(c, resumed);
    background.close();
    assertThat(background.errors).hasValue(0);
    assertThat(background.calls.get()).isPositive();
    assertThat(answer(a, 110)).isEqualTo("PREFIX_MATCH[engine-0]");
    assertThat(answer(b, 110)).isEqualTo("PREFIX_MATCH[engine-0]");
    assertThat(answer(b, 10)).doesNotStartWith("PREFIX_MATCH"); // replaced by the new full state
    final List<String> digestB = digest(b, 410);
    assertThat(digest(a, 410)).isEqualTo(digestB);
    assertThat(digest(c, 410)).as("the replica started during the outage").isEqualTo(digestB);
    assertThat(digestB).filteredOn(d -> d.endsWith("[engine-0]")).hasSize(20);
    assertThat(digestB).filteredOn(d -> d.endsWith("[engine-2]")).hasSize(8);
  }
}
