package io.inferencecache.service.server;

import static io.inferencecache.service.server.Fixtures.chainRequest;
import static io.inferencecache.service.server.Fixtures.chainUpdate;
import static io.inferencecache.service.server.Fixtures.hashes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.service.ingest.IngestForwarder;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ReportCacheState with a forwarder that says a sender owes a resync (replication: content applied
 * locally while the broker was unreachable): the sender's call ends with ABORTED and the
 * forwarder's reason — on its next message, or at once for an open idle call when the forwarder
 * signals — and nothing else changes.
 */
@Timeout(60)
class ReportResyncRequestTest {
  private ServiceHarness h;
  private final Forwarder forwarder = new Forwarder();

  /**
   * A broker that is up or down: up, it takes every update; down, it takes none and the sender owes
   * a resync, due once the broker is up again.
   */
  private static final class Forwarder implements IngestForwarder {
    volatile boolean up;
    final List<CacheStateUpdate> taken = new CopyOnWriteArrayList<>();
    final Set<String> owing = ConcurrentHashMap.newKeySet();
    final List<String> asked = new CopyOnWriteArrayList<>();
    final List<Runnable> due = new CopyOnWriteArrayList<>();

    @Override
    public boolean forwardUpdate(final CacheStateUpdate u) {
      if (!up) {
        owing.add(u.getReplicaId());
        return false;
      }
      taken.add(u);
      return true;
    }

    @Override
    public boolean forwardEvent(final CacheEvent e) {
      return up;
    }

    @Override
    public String resyncReason(final String tenantId, final String modelId, final String replica) {
      return up && owing.contains(replica) ? "resync " + replica : null;
    }

    @Override
    public void resyncAsked(final String tenantId, final String modelId, final String replica) {
      owing.remove(replica);
      asked.add(replica);
    }

    @Override
    public void whenResyncDue(final Runnable r) {
      due.add(r);
    }

    void brokerBack() {
      up = true;
      due.forEach(Runnable::run);
    }
  }

  /** One open ReportCacheState call and how it ended. */
  private final class Call {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        h.asyncStub.reportCacheState(
            new StreamObserver<>() {
              @Override
              public void onNext(final Ack value) {
                done.complete(value);
              }

              @Override
              public void onError(final Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });

    Call send(final CacheStateUpdate u) {
      in.onNext(u);
      return this;
    }

    Ack ack() throws Exception {
      in.onCompleted();
      return done.get(10, TimeUnit.SECONDS);
    }

    Status failure() throws Exception {
      try {
        done.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        return Status.fromThrowable(e.getCause());
      }
      throw new AssertionError("the call ended with an Ack");
    }
  }

  @BeforeEach
  void open() throws IOException {
    h = new ServiceHarness(new ServiceHarness.Options());
    h.service.forwardIngest(forwarder);
  }

  @AfterEach
  void close() {
    h.close();
  }

  private String reason(final List<ByteString> chain) {
    return h.stub.lookupRoute(chainRequest(chain, 16).build()).getReasonCode();
  }

  private static CacheStateUpdate chain(final String replica, final int tag) {
    return chainUpdate(replica, hashes(tag, 8), 16);
  }

  @Test
  void aSenderThatOwesAResyncHasItsNextCallEndedWithAbortedAndTheMessageIsNotTaken()
      throws Exception {
    assertThat(new Call().send(chain("r-0", 1)).ack().getAccepted()).isTrue();
    assertThat(reason(hashes(1, 8))).isEqualTo("PREFIX_MATCH"); // applied here: broker down
    assertThat(forwarder.owing).containsExactly("r-0");

    forwarder.up = true;
    final Status s = new Call().send(chain("r-0", 2)).failure();
    assertThat(s.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(s.getDescription()).isEqualTo("resync r-0");
    assertThat(forwarder.asked).containsExactly("r-0");
    assertThat(forwarder.taken).isEmpty();
    assertThat(reason(hashes(2, 8))).isNotEqualTo("PREFIX_MATCH"); // not applied either
    assertThat(reason(hashes(1, 8))).isEqualTo("PREFIX_MATCH"); // what was accepted stays

    // asked once: the sender's resync is forwarded like any report
    assertThat(new Call().send(chain("r-0", 3)).ack().getAccepted()).isTrue();
    assertThat(forwarder.taken).extracting(CacheStateUpdate::getReplicaId).containsExactly("r-0");
    assertThat(forwarder.asked).containsExactly("r-0");
  }

  @Test
  void anOpenIdleCallOfAnOwingSenderEndsWhenTheForwarderSignalsAndOtherSendersGoOn()
      throws Exception {
    final Call owing = new Call().send(chain("r-0", 1));
    final Call other = new Call().send(chain("r-1", 4));
    await().atMost(Duration.ofSeconds(10)).until(() -> forwarder.owing.size() == 2);
    forwarder.owing.remove("r-1"); // only r-0 owes a resync

    forwarder.brokerBack();
    assertThat(owing.failure().getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(forwarder.asked).containsExactly("r-0");
    assertThat(other.done).isNotDone();
    assertThat(other.send(chain("r-1", 5)).ack().getAccepted()).isTrue();
    assertThat(forwarder.taken).extracting(CacheStateUpdate::getReplicaId).containsExactly("r-1");
  }

  @Test
  void withoutAResyncDueCallsEndWithAnAckAndTheSignalEndsNothing() throws Exception {
    forwarder.up = true;
    final Call c = new Call().send(chain("r-0", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> forwarder.taken.size() == 1);
    forwarder.brokerBack();
    assertThat(c.ack().getAccepted()).isTrue();
    assertThat(forwarder.asked).isEmpty();
  }
}
