package io.inferencecache.controlplane.controller.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

/**
 * The controller's series in its Dropwizard registry, exported by the server's bridge ({@link
 * PrometheusExposition}): the CacheBackend families of the specification ({@code
 * inferencecache_backend_probe_result_total}, {@code inferencecache_backend_t2_hit_rate}, {@code
 * inferencecache_backend_t2_query_tokens_total}), the poller's {@code
 * inferencecache_controller_snapshot_polls_total} and the controller-runtime style families every
 * controller has ({@code controller_runtime_reconcile_total}, {@code
 * controller_runtime_reconcile_errors_total}, {@code workqueue_adds_total}, {@code
 * workqueue_retries_total}, {@code workqueue_depth}, {@code leader_election_master_status}). A
 * registered controller's counters exist at 0 from its registration, every {@code result} label
 * included, so a rate over them is defined before the first reconcile. Thread-safe.
 */
public final class ControllerMetrics {
  /**
   * The Lease of the controller's leader election, the {@code name} label of {@code
   * leader_election_master_status}.
   */
  public static final String LEADER_LOCK = "inference-cache-controller-leader-lock";

  /** {@code result} values of {@code controller_runtime_reconcile_total}. */
  public enum Outcome {
    SUCCESS("success"),
    ERROR("error"),
    REQUEUE("requeue"),
    REQUEUE_AFTER("requeue_after");

    private final String label;

    Outcome(final String label) {
      this.label = label;
    }
  }

  private final MetricRegistry registry;
  private final AtomicInteger leading = new AtomicInteger();
  private final Map<String, Long> t2Baselines = new HashMap<>();

  public ControllerMetrics(final MetricRegistry registry) {
    this.registry = registry;
    registry.gauge(
        MetricFamily.LEADER_ELECTION_MASTER_STATUS.registryName(LEADER_LOCK), () -> leading::get);
  }

  /** The registry the series live in. */
  public MetricRegistry registry() {
    return registry;
  }

  /**
   * {@code inferencecache_controller_snapshot_polls_total{result}}: one poll of the server's {@code
   * /snapshot}, read and decoded ({@code ok}) or not ({@code error}). Both series exist at 0 from
   * the first call of {@link #snapshotPolls()}.
   */
  public void snapshotPoll(final boolean ok) {
    registry
        .counter(MetricFamily.CONTROLLER_SNAPSHOT_POLLS.registryName(ok ? "ok" : "error"))
        .inc();
  }

  /** Registers both {@code inferencecache_controller_snapshot_polls_total} series at 0. */
  public void snapshotPolls() {
    registry.counter(MetricFamily.CONTROLLER_SNAPSHOT_POLLS.registryName("ok"));
    registry.counter(MetricFamily.CONTROLLER_SNAPSHOT_POLLS.registryName("error"));
  }

  /** {@code leader_election_master_status}: 1 while this process leads. */
  public void leading(final boolean isLeader) {
    leading.set(isLeader ? 1 : 0);
  }

  /** One controller's reconcile and work-queue series, all present (at 0) from here on. */
  public Reconciles controller(final String name) {
    final Map<Outcome, Counter> outcomes = new java.util.EnumMap<>(Outcome.class);
    for (final Outcome o : Outcome.values()) {
      outcomes.put(
          o, registry.counter(MetricFamily.CONTROLLER_RECONCILE.registryName(name, o.label)));
    }
    final AtomicReference<IntSupplier> depth = new AtomicReference<>(() -> 0);
    registry.gauge(
        MetricFamily.WORKQUEUE_DEPTH.registryName(name),
        () -> (Gauge<Integer>) () -> depth.get().getAsInt());
    return new Reconciles(
        depth,
        outcomes,
        registry.counter(MetricFamily.CONTROLLER_RECONCILE_ERRORS.registryName(name)),
        registry.counter(MetricFamily.WORKQUEUE_ADDS.registryName(name)),
        registry.counter(MetricFamily.WORKQUEUE_RETRIES.registryName(name)));
  }

  /** The series of one controller. */
  public static final class Reconciles {
    private final AtomicReference<IntSupplier> depth;
    private final Map<Outcome, Counter> outcomes;
    private final Counter errors;
    private final Counter adds;
    private final Counter retries;

    Reconciles(
        final AtomicReference<IntSupplier> depth,
        final Map<Outcome, Counter> outcomes,
        final Counter errors,
        final Counter adds,
        final Counter retries) {
      this.depth = depth;
      this.outcomes = outcomes;
      this.errors = errors;
      this.adds = adds;
      this.retries = retries;
    }

    /** {@code workqueue_depth} reads {@code queueDepth} from now on (0 before). */
    public void depth(final IntSupplier queueDepth) {
      depth.set(queueDepth);
    }

    /** One reconcile ended with {@code outcome}; an error also counts in the errors total. */
    public void reconciled(final Outcome outcome) {
      outcomes.get(outcome).inc();
      if (outcome == Outcome.ERROR) {
        errors.inc();
      }
    }

    /** An item entered the work queue. */
    public void added() {
      adds.inc();
    }

    /** An item was put back with the rate limiter's delay. */
    public void retried() {
      retries.inc();
    }
  }

  /**
   * {@code inferencecache_backend_probe_result_total{backend,result,stage}}: one functional-probe
   * stage outcome.
   *
   * @param backend {@code namespace/name}
   * @param stage {@code ingest}, {@code routing} or {@code t2}
   * @param result {@code ok}, {@code failed} or {@code skipped}
   */
  public void probeResult(final String backend, final String stage, final String result) {
    registry.counter(MetricFamily.BACKEND_PROBE_RESULT.registryName(backend, result, stage)).inc();
  }

  /** {@code inferencecache_backend_t2_hit_rate{backend}} = {@code ratio}. */
  public void t2HitRate(final String backend, final double ratio) {
    final String name = MetricFamily.BACKEND_T2_HIT_RATE.registryName(backend);
    synchronized (registry) {
      registry.remove(name);
      registry.gauge(name, () -> () -> ratio);
    }
  }

  /**
   * {@code inferencecache_backend_t2_query_tokens_total{backend}} from the backend's cumulative
   * query-token count: the first observation (and the first after {@link #pruneBackend}) records a
   * baseline and adds 0, so the series appears at 0; later ones add {@code cumulative − last} when
   * positive, else 0 (a restarted engine's counter); the baseline always moves on.
   */
  public void t2QueryTokens(final String backend, final long cumulative) {
    final Counter c = registry.counter(MetricFamily.BACKEND_T2_QUERY_TOKENS.registryName(backend));
    final long delta;
    synchronized (t2Baselines) {
      final Long last = t2Baselines.put(backend, cumulative);
      delta = last == null ? 0 : Math.max(0, cumulative - last);
    }
    c.inc(delta);
  }

  /** Removes the T2 series of {@code backend} (drained or deleted). */
  public void pruneBackend(final String backend) {
    registry.remove(MetricFamily.BACKEND_T2_HIT_RATE.registryName(backend));
    registry.remove(MetricFamily.BACKEND_T2_QUERY_TOKENS.registryName(backend));
    synchronized (t2Baselines) {
      t2Baselines.remove(backend);
    }
  }
}
