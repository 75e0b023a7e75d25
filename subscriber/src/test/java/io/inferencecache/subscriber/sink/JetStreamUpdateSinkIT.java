package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.inferencecache.natslocal.NatsServerExtension;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamReader;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamUnavailableException;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The subscriber's stream sink against a real nats-server 2.9 with JetStream. */
@Timeout(90)
class JetStreamUpdateSinkIT {
  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private SubscriberConfig config() {
    return SubscriberConfig.builder()
        .replicaId("pod-0")
        .modelId("llama-3.1-8b")
        .tenantId("team-a")
        .replicationNatsUrl(nats.url())
        .replicationStream("sink-it")
        .build();
  }

  private JetStreamUpdateSink sink() {
    final JetStreamUpdateSink sink = JetStreamUpdateSink.connect(config());
    open.add(sink);
    // connected, and the connection's resync request made (the connection is made in the
    // background)
    await().atMost(Duration.ofSeconds(15)).until(() -> sink.connections() > 0);
    assertThat(sink.resyncRequested()).isTrue();
    return sink;
  }

  private record Got(long seq, StreamRecord.Kind kind, byte[] body) {}

  private List<Got> read() {
    final List<Got> got = new CopyOnWriteArrayList<>();
    final ReplicationStream s = ReplicationStream.connect(config().replication(), "reader");
    open.add(s);
    final StreamReader r =
        new StreamReader(s, () -> 0, (seq, kind, body, ts) -> got.add(new Got(seq, kind, body)));
    open.add(r);
    r.start();
    return got;
  }

  private static SubscriberUpdate state(final int prefixes) {
    final List<PrefixRecord> list = new ArrayList<>(prefixes);
    for (int i = 0; i < prefixes; i++) {
      list.add(
          new PrefixRecord(
              ByteBuffer.allocate(8).putLong(i).array(), 16, "", PrefixRecord.TIER_T1));
    }
    return new SubscriberUpdate("pod-0", "llama-3.1-8b", "team-a", "vllm", 0, list);
  }

  @Test
  void publishesEachKindToTheReplicasSubjectWithTheConfigIdentity() throws Exception {
    final JetStreamUpdateSink sink = sink();
    assertThat(sink.subject())
        .isEqualTo(StreamRecord.subject("sink-it", "team-a", "llama-3.1-8b", "pod-0"));
    sink.report(state(3));
    sink.prefixEvicted(ByteBuffer.allocate(8).putLong(1).array(), "", 7);
    sink.stats(new StatsSample(100, 0.5f, 0.25f, 0, 0), 9);
    final List<Got> got = read();
    await().atMost(Duration.ofSeconds(15)).until(() -> got.size() == 3);
    assertThat(got)
        .extracting(Got::kind)
        .containsExactly(
            StreamRecord.Kind.UPDATE, StreamRecord.Kind.EVENT, StreamRecord.Kind.UPDATE);
    assertThat(CacheStateUpdate.parseFrom(got.get(0).body()).getPrefixesCount()).isEqualTo(3);
    final CacheEvent evicted = CacheEvent.parseFrom(got.get(1).body());
    assertThat(evicted.getType()).isEqualTo(CacheEvent.Type.PREFIX_EVICTED);
    assertThat(evicted.getReplicaId()).isEqualTo("pod-0");
    assertThat(evicted.getTenantId()).isEqualTo("team-a");
    assertThat(CacheStateUpdate.parseFrom(got.get(2).body()).getStats().getHitRate())
        .isEqualTo(0.5f);
    assertThat(sink.published()).isEqualTo(3);
  }

  @Test
  void aFullStateRollsTheSubjectUpAndIsChunked() throws Exception {
    final JetStreamUpdateSink sink = sink();
    sink.report(state(5));
    sink.report(state(6));
    final int big = JetStreamUpdateSink.STATE_CHUNK_PREFIXES * 2 + 10;
    sink.resync(state(big));
    assertThat(sink.resyncRequested()).isFalse();
    assertThat(sink.statesPublished()).isEqualTo(1);
    final List<Got> got = read();
    await().atMost(Duration.ofSeconds(15)).until(() -> got.size() == 3);
    assertThat(got)
        .extracting(Got::kind)
        .containsExactly(
            StreamRecord.Kind.STATE, StreamRecord.Kind.UPDATE, StreamRecord.Kind.UPDATE);
    int prefixes = 0;
    for (Got g : got) {
      prefixes += CacheStateUpdate.parseFrom(g.body()).getPrefixesCount();
    }
    assertThat(prefixes).isEqualTo(big);
    assertThat(got.get(0).seq()).isEqualTo(3); // the two reports before it are gone
  }

  @Test
  void aClearIsAnEmptyFullState() throws Exception {
    final JetStreamUpdateSink sink = sink();
    sink.report(state(5));
    sink.allCleared(0);
    final List<Got> got = read();
    await().atMost(Duration.ofSeconds(15)).until(() -> got.size() == 1);
    assertThat(got.get(0).kind()).isEqualTo(StreamRecord.Kind.STATE);
    assertThat(CacheStateUpdate.parseFrom(got.get(0).body()).getPrefixesCount()).isZero();
  }

  @Test
  void aPublishTheBrokerCannotTakeThrowsAndAsksForAResync() throws Exception {
    final JetStreamUpdateSink sink = sink();
    sink.resync(state(1));
    assertThat(sink.resyncRequested()).isFalse();
    nats.server().kill();
    await()
        .atMost(Duration.ofSeconds(15))
        .ignoreExceptions()
        .until(
            () -> {
              try {
                sink.report(state(1));
                return false;
              } catch (StreamUnavailableException e) {
                return true;
              }
            });
    assertThat(sink.resyncRequested()).isTrue();
    assertThat(sink.failed()).isPositive();
    assertThatThrownBy(() -> sink.resync(state(2))).isInstanceOf(StreamUnavailableException.class);
    assertThat(sink.resyncRequested()).isTrue();
    nats.server().start();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> sink.resync(state(2)));
    final List<Got> got = read();
    await().atMost(Duration.ofSeconds(15)).until(() -> !got.isEmpty());
    assertThat(got.get(0).kind()).isEqualTo(StreamRecord.Kind.STATE);
    assertThat(CacheStateUpdate.parseFrom(got.get(0).body()).getPrefixesCount()).isEqualTo(2);
  }
}
