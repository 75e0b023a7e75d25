package io.inferencecache.perf.replication;

import com.google.protobuf.ByteString;
import io.inferencecache.natslocal.NatsServer;
import io.inferencecache.perf.chaos.IngestLoad;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.servelocal.ServeChild;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Figure 4 ({@code ReplicationDrills drills}): two replicated servers (A with an index file, B in
 * memory) on one stream of {@code --chains} chains, LookupRoute threads on both the whole time.
 *
 * <ol>
 *   <li><b>broker outage</b>: nats-server killed (SIGKILL), down {@code --outage-seconds}, started
 *       again on the same store; then one marker update is published and the time from the broker
 *       being ready to each replica applying it is measured (the consumer is back);
 *   <li><b>subscriber restart (rollup) during load</b>: a subscriber publishing engine replica
 *       {@code sub-0}'s full state is closed and replaced by a new one that publishes a different
 *       full state (rolling the subject up) while 20,000 more chains are published; afterwards both
 *       replicas must answer only the new state for {@code sub-0} and the subject must hold only
 *       it;
 *   <li><b>rewind</b> ({@link RewindDrill}): block 3 of every 7th of the newest {@code --rewind /
 *       2} chains evicted, then an in-process replica's consumer rewound {@code --rewind} sequences
 *       (re-applying those chains' reports and their evictions); its digest must not change.
 * </ol>
 *
 * Each drill requires 0 LookupRoute errors.
 */
final class Drills {
  private static final String SUB = "sub-0";
  private static final int STATE_PREFIXES = 2_000;

  private final ReplicationDrills.DrillsCommand o;

  Drills(final ReplicationDrills.DrillsCommand o) {
    this.o = o;
  }

  int run() throws Exception {
    final Path work = o.common.work();
    final Duration bound = o.common.readyTimeout;
    final int blocks = 4;
    final String stream = "drills-" + System.currentTimeMillis();
    boolean ok = true;
    System.out.println("load_start=\"" + ReplicationDrills.load() + "\"");
    try (NatsServer nats = NatsServer.create().start();
        StreamFill fill = new StreamFill(nats.url(), stream, blocks, 8);
        ServeChild a =
            new ServeChild(
                o.common.jar,
                ReplicationDrills.SERVE_JVM_OPTIONS,
                work.resolve("a"),
                ReplicationDrills.serveYaml(
                    nats.url(), stream, 4_000_000, work.resolve("a").resolve("index.dat")));
        ServeChild b =
            new ServeChild(
                o.common.jar,
                ReplicationDrills.SERVE_JVM_OPTIONS,
                work.resolve("b"),
                ReplicationDrills.serveYaml(nats.url(), stream, 4_000_000, null))) {
      long last = fill.publish(0, o.chains);
      a.start();
      b.start();
      a.awaitReadyMillis(bound);
      b.awaitReadyMillis(bound);
      a.awaitApplied(last, bound);
      b.awaitApplied(last, bound);
      long universe = o.chains;
      try (LookupLoad lookups = new LookupLoad(List.of(a, b), universe, blocks, o.lookupThreads)) {
        // 1. broker outage
        final long errors0 = lookups.errors();
        final long ok0 = lookups.ok();
        nats.kill();
        final long killed = System.nanoTime();
        awaitMetric(a, "inferencecache_replication_connected", 0, bound);
        awaitMetric(b, "inferencecache_replication_connected", 0, bound);
        LockSupport.parkNanos(
            Math.max(0, killed + TimeUnit.SECONDS.toNanos(o.outageSeconds) - System.nanoTime()));
        nats.start();
        final long up = System.nanoTime();
        final long marker = fill.publish(universe, 1);
        final long published = System.nanoTime();
        universe++;
        a.awaitApplied(marker, bound);
        final long backA = System.nanoTime();
        b.awaitApplied(marker, bound);
        final long backB = System.nanoTime();
        final long outageErrors = lookups.errors() - errors0;
        System.out.printf(
            "broker_outage down_s=%.1f marker_published_ms=%d back_ms_a=%d back_ms_b=%d"
                + " (broker ready to the marker applied) lookups=%d lookup_errors=%d codes=%s"
                + " load=\"%s\"%n",
            (up - killed) / 1e9,
            ms(published - up),
            ms(backA - up),
            ms(backB - up),
            lookups.ok() - ok0,
            outageErrors,
            lookups.codes(),
            ReplicationDrills.load());
        ok &= check(outageErrors == 0, "LookupRoute errors during the broker outage");

        // 2. subscriber restart (rollup) during load
        final long errors1 = lookups.errors();
        final long ok1 = lookups.ok();
        final JetStreamUpdateSink first = sink(nats.url(), stream);
        first.resync(state(0));
        last = fill.publish(universe, 1);
        a.awaitApplied(last, bound);
        b.awaitApplied(last, bound);
        universe++;
        final int all = STATE_PREFIXES / 10;
        final boolean oldVisible = matches(a, 0) == all && matches(b, 0) == all;
        final long loadFrom = universe;
        final CompletableFuture<Long> load =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return fill.publish(loadFrom, 20_000);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        first.close();
        final long r0 = System.nanoTime();
        try (JetStreamUpdateSink second = sink(nats.url(), stream)) {
          second.resync(state(STATE_PREFIXES));
          final long rolledUp = System.nanoTime();
          last = Math.max(load.get(120, TimeUnit.SECONDS), fill.publish(loadFrom + 20_000, 1));
          universe = loadFrom + 20_001;
          a.awaitApplied(last, bound);
          b.awaitApplied(last, bound);
          final long converged = System.nanoTime();
          final boolean oldGone = matches(a, 0) == 0 && matches(b, 0) == 0;
          final boolean newThere =
              matches(a, STATE_PREFIXES) == all
                  && matches(b, STATE_PREFIXES) == all
                  && sameAnswers(a, b);
          final long onSubject =
              fill.messagesOn(
                  StreamRecord.subject(stream, IngestLoad.TENANT, IngestLoad.MODEL, SUB));
          final long rollupErrors = lookups.errors() - errors1;
          System.out.printf(
              "subscriber_restart resync_ms=%d converged_ms=%d old_state_visible_before=%b"
                  + " old_state_gone=%b new_state_on_both=%b subject_messages=%d lookups=%d"
                  + " lookup_errors=%d codes=%s load=\"%s\"%n",
              ms(rolledUp - r0),
              ms(converged - r0),
              oldVisible,
              oldGone,
              newThere,
              onSubject,
              lookups.ok() - ok1,
              rollupErrors,
              lookups.codes(),
              ReplicationDrills.load());
          ok &= check(oldVisible && oldGone && newThere, "rollup did not replace the old state");
          ok &= check(onSubject == 1, "the subject holds more than the new full state");
          ok &= check(rollupErrors == 0, "LookupRoute errors during the subscriber restart");
        }
      }
      // 3. rewind, on the same stream (it now holds well over --rewind messages); evictions of
      // chains re-reported inside the rewound range first, so order matters to the digest
      fill.evict(universe - o.rewind / 2, universe, 7, 3);
      final RewindDrill.Result r =
          RewindDrill.run(nats.url(), stream, universe, blocks, o.rewind, bound);
      System.out.println(r + " load=\"" + ReplicationDrills.load() + "\"");
      ok &= check(r.digestUnchanged(), "the rewound replica's digest changed");
      ok &= check(r.reapplied() >= o.rewind, "fewer messages re-applied than rewound");
      ok &= check(r.lookupErrors() == 0, "lookup errors during the rewind");
    }
    System.out.println("summary ok=" + ok + " load_end=\"" + ReplicationDrills.load() + "\"");
    return ok ? 0 : 1;
  }

  private static boolean check(final boolean condition, final String failure) {
    if (!condition) {
      System.out.println("FAIL " + failure);
    }
    return condition;
  }

  private static long ms(final long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private static void awaitMetric(
      final ServeChild s, final String name, final double value, final Duration bound) {
    final long deadline = System.nanoTime() + bound.toNanos();
    while (s.metric(name) != value && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private static JetStreamUpdateSink sink(final String natsUrl, final String stream) {
    final JetStreamUpdateSink sink =
        JetStreamUpdateSink.connect(
            SubscriberConfig.builder()
                .replicaId(SUB)
                .modelId(IngestLoad.MODEL)
                .tenantId(IngestLoad.TENANT)
                .replicationNatsUrl(natsUrl)
                .replicationStream(stream)
                .build());
    // connected (in the background), and the connection's resync request made
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (sink.connections() == 0) {
      if (System.nanoTime() - deadline > 0) {
        sink.close();
        throw new IllegalStateException("the subscriber's sink did not connect within 60 s");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    return sink;
  }

  private static byte[] stateHash(final int i) {
    return ByteBuffer.allocate(8).putLong(0x5ABC_0000_0000L + i).array();
  }

  /** Full state {@code from} .. {@code from + STATE_PREFIXES - 1} of engine replica sub-0. */
  private static SubscriberUpdate state(final int from) {
    final List<PrefixRecord> prefixes = new ArrayList<>();
    for (int i = from; i < from + STATE_PREFIXES; i++) {
      prefixes.add(new PrefixRecord(stateHash(i), 128, "", PrefixRecord.TIER_T1));
    }
    return new SubscriberUpdate(SUB, IngestLoad.MODEL, IngestLoad.TENANT, "vllm", 0, prefixes);
  }

  private static String answer(final ServeChild s, final int i) {
    final LookupRouteResponse r =
        InferenceCacheGrpc.newBlockingStub(s.channel())
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .lookupRoute(
                LookupRouteRequest.newBuilder()
                    .setTenantId(IngestLoad.TENANT)
                    .setModelId(IngestLoad.MODEL)
                    .setHashScheme(IngestLoad.SCHEME)
                    .setPrefixHash(ByteString.copyFrom(stateHash(i)))
                    .build());
    final StringBuilder b = new StringBuilder(r.getReasonCode());
    for (ReplicaScore score : r.getReplicaScoresList()) {
      if (score.getMatchedTokens() > 0) {
        b.append(' ').append(score.getReplicaId());
      }
    }
    return b.toString();
  }

  /** How many of every 10th prefix of the state starting at {@code from} are sub-0 matches. */
  private static int matches(final ServeChild s, final int from) {
    int n = 0;
    for (int i = from; i < from + STATE_PREFIXES; i += 10) {
      if (answer(s, i).equals("PREFIX_MATCH " + SUB)) {
        n++;
      }
    }
    return n;
  }

  private static boolean sameAnswers(final ServeChild a, final ServeChild b) {
    for (int i = 0; i < 2 * STATE_PREFIXES; i += 7) {
      if (!answer(a, i).equals(answer(b, i))) {
        return false;
      }
    }
    return true;
  }
}
