package io.inferencecache.controlplane.controller.metrics;

import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import java.util.concurrent.ExecutorService;

/**
 * The official client's rate-limited work queue (per-item exponential backoff), counting adds and
 * rate-limited retries into {@code workqueue_adds_total} / {@code workqueue_retries_total}.
 */
public final class MeteredQueue extends DefaultRateLimitingQueue<Request> {
  private final ControllerMetrics.Reconciles metrics;

  public MeteredQueue(final ExecutorService delays, final ControllerMetrics.Reconciles metrics) {
    super(delays);
    this.metrics = metrics;
  }

  @Override
  public void add(final Request item) {
    metrics.added();
    super.add(item);
  }

  @Override
  public void addRateLimited(final Request item) {
    metrics.retried();
    super.addRateLimited(item);
  }
}
