package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.service.prompt.PromptTokenizer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The service's side of a LookupRoute driven directly: one metrics record per delivered answer,
 * none for a call answered elsewhere (a transport watchdog counts its own TIMEOUT), latency 0 for
 * the probe tenant, and the fail-open guard counted. The decision itself is tested in the engine
 * (LookupRouterTest).
 */
@Timeout(30)
class LookupRouteHandlerTest {
  static final byte[] KEY = {1, 2, 3, 4, 5, 6, 7, 8};

  CacheIndex index;
  final RecordingLookupMetrics metrics = new RecordingLookupMetrics();
  LookupRouteHandler handler;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    handler = new LookupRouteHandler(index, PromptTokenizer.NONE, 16, metrics, System::nanoTime);
    index.ingest(
        new IngestUpdate(
            "r-a", "m", "t", "vllm", 0, "", List.of(IngestPrefix.legacy(KEY, 128, 1)), null));
  }

  @AfterEach
  void close() {
    index.close();
  }

  static RouteRequest exact(final String tenant) {
    final RouteRequest in = new RouteRequest();
    in.request().keys(tenant, "m", "vllm", "").exact(KEY, 128);
    return in;
  }

  static RouteCall claimable(final boolean claimable) {
    return new RouteCall() {
      @Override
      public long deadlineNanos() {
        return Long.MAX_VALUE;
      }

      @Override
      public boolean cancelled() {
        return false;
      }

      @Override
      public boolean claim() {
        return claimable;
      }
    };
  }

  @Test
  void deliveredAnswerIsRecordedOnceWithItsModelReasonAndHint() {
    final RouteResult out = new RouteResult();
    handler.handle(exact("t"), out, RouteCall.NONE, System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(metrics.count()).isEqualTo(1);
    assertThat(metrics.last().model()).isEqualTo("m");
    assertThat(metrics.last().reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(metrics.last().hintUsed()).isTrue();
    assertThat(metrics.last().latencyNanos()).isPositive();
  }

  @Test
  void callAnsweredElsewhereIsNotRecorded() {
    handler.handle(exact("t"), new RouteResult(), claimable(false), System.nanoTime());
    assertThat(metrics.count()).isZero();
  }

  @Test
  void probeTenantIsRecordedWithZeroLatency() {
    handler.handle(
        exact(CacheIndex.RESERVED_TENANT), new RouteResult(), RouteCall.NONE, System.nanoTime());
    assertThat(metrics.last().reasonCode()).isEqualTo(ReasonCodes.NO_HINT);
    assertThat(metrics.last().latencyNanos()).isZero();
  }

  @Test
  void internalFaultIsCountedAndRecordedAsNoHint() {
    handler
        .router()
        .indexHook(
            () -> {
              throw new IllegalStateException("injected");
            });
    handler.handle(exact("t"), new RouteResult(), RouteCall.NONE, System.nanoTime());
    assertThat(metrics.internalErrors()).isEqualTo(1);
    assertThat(metrics.last().reasonCode()).isEqualTo(ReasonCodes.NO_HINT);
    assertThat(metrics.last().hintUsed()).isFalse();
  }
}
