package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.Context;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.server.Fixtures;
import io.inferencecache.service.server.ServiceHarness;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The zero-copy path pools its per-call objects and returns one to the pool when the transport has
 * read the response. A call cancelled by its client while the handler runs must not strand its
 * object: the path's object count (every object ever created, all of them scanned by the deadline
 * watchdog) stays flat over many such calls.
 */
@Timeout(60)
class ZeroCopyCallPoolTest {

  static int tracked(final ServiceHarness h) {
    return h.service.zeroCopy().trackedCalls();
  }

  @Test
  void bothPathsShareOneWatchdogAndPoolTheirCalls() throws Exception {
    try (ServiceHarness h = new ServiceHarness(new ServiceHarness.Options())) {
      assertThat(h.service.zeroCopy().watchdog()).isSameAs(h.service.lookupRoutes().watchdog());
      for (int i = 0; i < 50; i++) {
        h.service.lookupRoute(Fixtures.request().build(), new StreamRecorder());
      }
      assertThat(h.service.lookupRoutes().protoTrackedCalls())
          .as("sequential protobuf-path calls reuse one pooled call")
          .isEqualTo(1);
    }
  }

  /** Collects nothing: the protobuf path's response is not under test here. */
  private static final class StreamRecorder
      implements io.grpc.stub.StreamObserver<LookupRouteResponse> {
    @Override
    public void onNext(final LookupRouteResponse value) {}

    @Override
    public void onError(final Throwable t) {}

    @Override
    public void onCompleted() {}
  }

  @ParameterizedTest
  @EnumSource(
      value = ServiceHarness.Transport.class,
      names = {"IN_PROCESS_ZERO_COPY", "NETTY_ZERO_COPY"})
  void cancelledCallsDoNotStrandPooledCallObjects(final ServiceHarness.Transport t)
      throws Exception {
    try (ServiceHarness h = new ServiceHarness(new ServiceHarness.Options().transport(t))) {
      for (int i = 0; i < 20; i++) {
        h.stub.lookupRoute(Fixtures.request().build());
      }
      final int before = tracked(h);
      for (int i = 0; i < 20; i++) {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch left = new CountDownLatch(1);
        final AtomicReference<Context> context = new AtomicReference<>();
        h.handler
            .router()
            .indexHook(
                () -> {
                  context.set(Context.current()); // the server call's context
                  entered.countDown();
                  release.await(5, TimeUnit.SECONDS);
                  left.countDown();
                });
        final ListenableFuture<LookupRouteResponse> call =
            h.futureStub.lookupRoute(Fixtures.request().setPrefixHash(Fixtures.hash(1, 1)).build());
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        call.cancel(true);
        await("the cancellation reaching the server call's context")
            .atMost(Duration.ofSeconds(5))
            .until(() -> context.get().isCancelled());
        release.countDown();
        assertThat(left.await(5, TimeUnit.SECONDS)).isTrue();
        // The handler finishes its answer: every pooled call is back in the pool, none in flight.
        await("the cancelled call's pooled object back in the pool")
            .atMost(Duration.ofSeconds(5))
            .until(() -> h.service.zeroCopy().idleCalls() == tracked(h));
      }
      h.handler.router().indexHook(null);
      for (int i = 0; i < 20; i++) {
        assertThat(h.stub.lookupRoute(Fixtures.request().build()).getReasonCode())
            .isEqualTo("NO_HINT");
      }
      assertThat(tracked(h)).isLessThanOrEqualTo(before + 2);
    }
  }
}
