package io.inferencecache.subscriber.report;

import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.sink.UpdateSink;
import io.inferencecache.subscriber.source.HttpMetricsFetcher;
import io.inferencecache.subscriber.source.StatsScraper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stats path: every interval, scrape the engine ({@link StatsScraper#scrape()}) and deliver the
 * sample ({@link UpdateSink#stats}, stamped with the clock's now). Independent of the event path: a
 * failure here only skips the tick.
 *
 * <p>Staleness: a tick that delivers nothing (failed scrape or a sink that threw) is a
 * non-delivery. Below {@value #STALE_THRESHOLD} in a row each is a WARN; the {@value
 * #STALE_THRESHOLD}rd logs one ERROR {@code event=load_signal_stale}; later ones log at DEBUG. The
 * next delivery after that logs one INFO {@code event=load_signal_recovered}.
 *
 * <p>Threading: {@link #tick()} is synchronized, so the scheduler thread {@link #start()} launches
 * and a test calling it directly never overlap. Counters may be read from any thread.
 */
public final class StatsReporter implements AutoCloseable {
  /** Consecutive non-deliveries that make the load signal stale. */
  public static final int STALE_THRESHOLD = 3;

  /** Structured value logged when the load signal goes stale. */
  public static final String EVENT_STALE = "load_signal_stale";

  /** Structured value logged when it recovers. */
  public static final String EVENT_RECOVERED = "load_signal_recovered";

  private static final Logger LOG = LoggerFactory.getLogger(StatsReporter.class);

  private final StatsScraper scraper;
  private final UpdateSink sink;
  private final Duration interval;
  private final Clock clock;

  private int consecutiveFailures;
  private boolean everDelivered;
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private ScheduledExecutorService scheduler;

  /**
   * @param scraper the engine scraper
   * @param sink where samples go
   * @param interval the scrape cadence, positive
   * @param clock the source of the samples' timestamps
   */
  public StatsReporter(
      final StatsScraper scraper,
      final UpdateSink sink,
      final Duration interval,
      final Clock clock) {
    this.scraper = Objects.requireNonNull(scraper, "scraper");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.interval = Objects.requireNonNull(interval, "interval");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
  }

  /** One scrape and delivery. */
  public synchronized void tick() {
    final StatsSample sample;
    try {
      sample = scraper.scrape();
    } catch (final ScrapeException e) {
      markStale(e.getMessage());
      return;
    } catch (final RuntimeException e) {
      markStale("scrape failed: " + e);
      return;
    }
    try {
      sink.stats(sample, micros(clock.instant()));
    } catch (final RuntimeException e) {
      markStale("deliver stats: " + e);
      return;
    }
    markDelivered();
  }

  private static long micros(final Instant now) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, now);
  }

  private void markStale(final String cause) {
    failed.incrementAndGet();
    consecutiveFailures++;
    if (consecutiveFailures == STALE_THRESHOLD) {
      if (everDelivered) {
        LOG.error(
            "event={} consecutive_failures={} engine load stats stale; the last delivered sample"
                + " ages out at the server's index TTL, then the replica is ranked on residency"
                + " only: {}",
            EVENT_STALE,
            consecutiveFailures,
            cause);
      } else {
        LOG.error(
            "event={} consecutive_failures={} engine load stats undelivered since startup;"
                + " no sample sent for this replica: {}",
            EVENT_STALE,
            consecutiveFailures,
            cause);
      }
    } else if (consecutiveFailures > STALE_THRESHOLD) {
      LOG.debug("engine load stats still not delivered; skipping tick: {}", cause);
    } else {
      LOG.warn("engine load stats update failed; will retry: {}", cause);
    }
  }

  private void markDelivered() {
    delivered.incrementAndGet();
    if (consecutiveFailures >= STALE_THRESHOLD) {
      LOG.info(
          "event={} after_failures={} engine load stats recovered",
          EVENT_RECOVERED,
          consecutiveFailures);
    }
    consecutiveFailures = 0;
    everDelivered = true;
  }

  /** Starts ticking every interval on a daemon thread (first tick after one interval). */
  public synchronized void start() {
    if (scheduler != null) {
      throw new IllegalStateException("already started");
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              final Thread t = new Thread(r, "kvevent-stats");
              t.setDaemon(true);
              return t;
            });
    final long nanos = interval.toNanos();
    scheduler.scheduleAtFixedRate(this::tick, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /** Stops ticking; an in-flight scrape is interrupted. */
  @Override
  public void close() {
    final ScheduledExecutorService s;
    synchronized (this) {
      s = scheduler;
    }
    if (s == null) {
      return;
    }
    s.shutdownNow();
    try {
      if (!s.awaitTermination(HttpMetricsFetcher.TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        LOG.warn("stats reporter did not stop in time");
      }
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Samples delivered. */
  public long delivered() {
    return delivered.get();
  }

  /** Ticks that delivered nothing. */
  public long failed() {
    return failed.get();
  }

  /** Current run of non-deliveries. */
  public synchronized int consecutiveFailures() {
    return consecutiveFailures;
  }
}
