package io.inferencecache.service.lookup;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.service.prompt.PromptTokenizer;
import java.util.function.LongSupplier;

/**
 * The service's side of one LookupRoute, shared by both transports: runs the engine's decision
 * ({@link LookupRouter}, which owns every routing rule) and records the call in {@link
 * LookupMetrics} once its answer is the one delivered. Thread-safe.
 */
public final class LookupRouteHandler {
  private final LookupRouter router;
  private final LookupMetrics metrics;
  private final LongSupplier nanoTime;

  /**
   * A handler over {@code index}.
   *
   * @param engineBlockSize tokens per block when fingerprinting token_ids or tokenized prompt_text
   *     (non-positive: {@link LookupRouter#DEFAULT_ENGINE_BLOCK_SIZE})
   * @param nanoTime the clock of call start times, deadlines and latencies
   */
  public LookupRouteHandler(
      final CacheIndex index,
      final PromptTokenizer tokenizer,
      final int engineBlockSize,
      final LookupMetrics metrics,
      final LongSupplier nanoTime) {
    this.router = new LookupRouter(index, tokenizer, engineBlockSize, nanoTime);
    this.metrics = metrics;
    this.nanoTime = nanoTime;
  }

  /** The engine decision this handler runs (for its test hook and block size). */
  public LookupRouter router() {
    return router;
  }

  /**
   * Answers one LookupRoute into {@code out} and records it, unless {@code call} was answered
   * elsewhere (a watchdog TIMEOUT, counted by that transport). Never throws for an expected
   * outcome.
   *
   * @param start the handler-clock time at which the call arrived (for latency)
   */
  public void handle(
      final RouteRequest in, final RouteResult out, final RouteCall call, final long start) {
    router.route(in, out, call, start);
    if (out.internalError()) {
      metrics.internalError();
    }
    if (!call.claim()) {
      return;
    }
    metrics.record(
        out.modelLabel(),
        out.reasonCode(),
        out.scoreCount() > 0,
        out.probeTenant() ? 0 : nanoTime.getAsLong() - start);
  }
}
