package io.inferencecache.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.inferencecache.natslocal.NatsServerExtension;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Publisher and reader against a real nats-server 2.9 with JetStream. */
@Timeout(90)
class ReplicationStreamIT {
  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();

  private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private StreamSettings settings() {
    return new StreamSettings(nats.url(), "ic-test", Duration.ofSeconds(2));
  }

  private ReplicationStream connected() {
    final ReplicationStream s = ReplicationStream.connect(settings(), "test");
    open.add(s);
    await().atMost(Duration.ofSeconds(10)).until(s::connected);
    return s;
  }

  private record Got(long seq, StreamRecord.Kind kind, String body) {}

  private StreamReader reader(final ReplicationStream s, final long after, final List<Got> got) {
    final StreamReader r =
        new StreamReader(
            s,
            () -> after,
            (seq, kind, body, ts) ->
                got.add(new Got(seq, kind, new String(body, StandardCharsets.UTF_8))));
    open.add(r);
    r.start();
    return r;
  }

  private static byte[] b(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createsTheStreamWithRollupAllowedAndADuplicateWindow() throws Exception {
    final StreamInfo info = connected().ensureStream();
    assertThat(info.getConfiguration().getAllowRollup()).isTrue();
    assertThat(info.getConfiguration().getSubjects()).containsExactly("ic-test.>");
    assertThat(info.getConfiguration().getDuplicateWindow())
        .isEqualTo(Duration.ofSeconds(ReplicationStream.DUPLICATE_WINDOW_SECONDS));
  }

  @Test
  void aRollupKeepsOnlyTheNewestFullStateOfItsSubject() throws Exception {
    final ReplicationStream s = connected();
    s.ensureStream();
    final StreamPublisher p = new StreamPublisher(s);
    final String r1 = StreamRecord.subject("ic-test", "t", "m", "r1");
    final String r2 = StreamRecord.subject("ic-test", "t", "m", "r2");
    p.publish(r1, StreamRecord.Kind.UPDATE, b("a"), false);
    p.publish(r2, StreamRecord.Kind.UPDATE, b("other"), false);
    p.publish(r1, StreamRecord.Kind.UPDATE, b("b"), false);
    final long state = p.publish(r1, StreamRecord.Kind.STATE, b("full"), true);
    p.publish(r1, StreamRecord.Kind.UPDATE, b("c"), false);

    final List<Got> got = new CopyOnWriteArrayList<>();
    final StreamReader r = reader(s, 0, got);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 3);
    assertThat(got)
        .extracting(Got::body)
        .containsExactly("other", "full", "c"); // r1's a and b rolled up
    assertThat(got.get(1).seq()).isEqualTo(state);
    assertThat(got.get(1).kind()).isEqualTo(StreamRecord.Kind.STATE);
    assertThat(r.caughtUp()).isTrue();
  }

  @Test
  void readsFromAfterTheAppliedSequenceAndKeepsReadingNewMessages() throws Exception {
    final ReplicationStream s = connected();
    s.ensureStream();
    final StreamPublisher p = new StreamPublisher(s);
    final String subject = StreamRecord.subject("ic-test", "", "m", "r");
    for (int i = 1; i <= 5; i++) {
      p.publish(subject, StreamRecord.Kind.UPDATE, b("u" + i), false);
    }
    final List<Got> got = new CopyOnWriteArrayList<>();
    reader(s, 3, got);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 2);
    p.publish(subject, StreamRecord.Kind.EVENT, b("e6"), false);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 3);
    assertThat(got).extracting(Got::seq).containsExactly(4L, 5L, 6L);
    assertThat(got).extracting(Got::body).containsExactly("u4", "u5", "e6");
  }

  @Test
  void aSequenceBeyondTheStreamRereadsItFromTheStart() throws Exception {
    final ReplicationStream s = connected();
    s.ensureStream();
    new StreamPublisher(s)
        .publish(
            StreamRecord.subject("ic-test", "", "m", "r"), StreamRecord.Kind.UPDATE, b("x"), false);
    final List<Got> got = new CopyOnWriteArrayList<>();
    reader(s, 99, got);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);
    assertThat(got.get(0).seq()).isEqualTo(1);
  }

  @Test
  void aConsumerThatStopsPullingIsReplacedByTheStallWatchdog() throws Exception {
    final ReplicationStream s = connected();
    s.ensureStream();
    final StreamPublisher p = new StreamPublisher(s);
    final String subject = StreamRecord.subject("ic-test", "", "m", "r");
    p.publish(subject, StreamRecord.Kind.UPDATE, b("one"), false);
    final List<Got> got = new CopyOnWriteArrayList<>();
    final StreamReader r = reader(s, 0, got);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);
    final long created = r.consumersCreated();
    // a consumer left without a pull request, as nats-server 2.9 sometimes leaves an idle one
    r.consumer().stop();
    await().atMost(Duration.ofSeconds(15)).until(() -> r.consumer().isFinished());
    p.publish(subject, StreamRecord.Kind.UPDATE, b("two"), false);
    p.publish(subject, StreamRecord.Kind.UPDATE, b("three"), false);
    await()
        .atMost(Duration.ofMillis(StreamReader.STALL_MILLIS + 4 * StreamReader.WATCH_MILLIS))
        .until(() -> got.size() == 3);
    assertThat(got).extracting(Got::body).containsExactly("one", "two", "three");
    assertThat(r.stallsRecovered()).isEqualTo(1);
    assertThat(r.consumersCreated()).isEqualTo(created + 1);
  }

  @Test
  void aStreamOpenedWhileTheBrokerIsDownReturnsAtOnceAndConnectsWhenItComesUp() throws Exception {
    nats.server().kill();
    final long t0 = System.nanoTime();
    final ReplicationStream s = ReplicationStream.connect(settings(), "late");
    open.add(s);
    final StreamPublisher p = new StreamPublisher(s);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
    assertThat(s.connected()).isFalse();
    final String subject = StreamRecord.subject("ic-test", "", "m", "r");
    assertThatThrownBy(() -> p.publish(subject, StreamRecord.Kind.UPDATE, b("early"), false))
        .isInstanceOf(StreamUnavailableException.class)
        .hasMessageContaining("broker not connected");
    assertThatThrownBy(s::ensureStream)
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("not connected yet");
    final List<Got> got = new CopyOnWriteArrayList<>();
    reader(s, 0, got);
    final ReplicationStream abandoned = ReplicationStream.connect(settings(), "abandoned");
    final long t1 = System.nanoTime();
    abandoned.close();
    assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(Duration.ofSeconds(1));

    nats.server().start();
    await().atMost(Duration.ofSeconds(20)).until(s::connected);
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> p.publish(subject, StreamRecord.Kind.UPDATE, b("late"), false) > 0);
    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
    assertThat(got.get(0).body()).isEqualTo("late");
    assertThat(abandoned.connected())
        .as("a stream closed before it connected stays closed")
        .isFalse();
  }

  @Test
  void publishingWhileTheBrokerIsDownFailsFastAndTheReaderResumesAfterItsRestart()
      throws Exception {
    final ReplicationStream s = connected();
    s.ensureStream();
    final StreamPublisher p = new StreamPublisher(s);
    final String subject = StreamRecord.subject("ic-test", "", "m", "r");
    p.publish(subject, StreamRecord.Kind.UPDATE, b("before"), false);
    final List<Got> got = new CopyOnWriteArrayList<>();
    final StreamReader r = reader(s, 0, got);
    await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);
    final long consumersBefore = r.consumersCreated();

    nats.server().kill();
    await().atMost(Duration.ofSeconds(10)).until(() -> !s.connected());
    final long t0 = System.nanoTime();
    assertThatThrownBy(() -> p.publish(subject, StreamRecord.Kind.UPDATE, b("lost"), false))
        .isInstanceOf(StreamUnavailableException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));

    nats.server().start();
    await().atMost(Duration.ofSeconds(20)).until(s::connected);
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> p.publish(subject, StreamRecord.Kind.UPDATE, b("after"), false) > 0);
    await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 2);
    assertThat(got).extracting(Got::body).containsExactly("before", "after");
    // The reader replaced its consumer on the reconnection (not after missed heartbeats).
    assertThat(r.consumersCreated()).isGreaterThan(consumersBefore);
    assertThat(got).extracting(Got::seq).doesNotHaveDuplicates().isSorted();
  }

  @Test
  void anotherClientSeesOneSubjectPerReplica() throws Exception {
    assertThat(StreamRecord.subject("s", "team.a", "llama-3.1 8b/x", "pod-0"))
        .startsWith("s.")
        .doesNotContain(" ")
        .matches("s\\.t[A-Za-z0-9_-]+\\.m[A-Za-z0-9_-]+\\.r[A-Za-z0-9_-]+");
    assertThat(StreamRecord.subject("s", "", "m", "r")).startsWith("s.t.m");
    assertThat(StreamRecord.subject("s", "", "m", "r1"))
        .isNotEqualTo(StreamRecord.subject("s", "", "m", "r2"));
    final Connection c = Nats.connect(nats.url());
    try {
      assertThat(c.getStatus()).isEqualTo(Connection.Status.CONNECTED);
    } finally {
      c.close();
    }
  }

  @Test
  void settingsNameWhatIsWrong() {
    assertThat(new StreamSettings("", "a.b", Duration.ofSeconds(1)).problem()).contains("a.b");
    assertThat(new StreamSettings("nats://x:1", "ok", Duration.ZERO).problem())
        .contains("positive");
    assertThat(new StreamSettings("nats://x:1,nats://y:2", "ok", Duration.ofSeconds(1)).problem())
        .isNull();
    assertThat(new StreamSettings(" ", "ok", Duration.ofSeconds(1)).enabled()).isFalse();
  }
}
