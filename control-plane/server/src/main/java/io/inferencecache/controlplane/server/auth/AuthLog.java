package io.inferencecache.controlplane.server.auth;

import io.inferencecache.service.log.LogRateLimiter;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WARN lines of failed authentications, bounded in volume: each kind of line (a token the API
 * server rejected; a review that could not be had) is logged at most {@code maxLines} times per
 * interval, shared by every endpoint, so a flood of bad tokens cannot flood the log. A line logged
 * after some were suppressed says how many. The auth metrics still count every request, exactly.
 * Logged under {@link BearerAuthenticator}'s logger. Thread-safe.
 */
public final class AuthLog {
  /** Default lines of each kind per interval. */
  public static final int DEFAULT_MAX_LINES = 10;

  /** Default interval: 10 s. */
  public static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static final Logger LOG = LoggerFactory.getLogger(BearerAuthenticator.class);

  private final LogRateLimiter rejected;
  private final LogRateLimiter unavailable;

  public AuthLog(final int maxLines, final long intervalNanos, final LongSupplier nanoClock) {
    this.rejected = new LogRateLimiter(maxLines, intervalNanos, nanoClock);
    this.unavailable = new LogRateLimiter(maxLines, intervalNanos, nanoClock);
  }

  /** The defaults (10 lines of each kind per 10 s) on the system clock. */
  public static AuthLog defaults() {
    return new AuthLog(DEFAULT_MAX_LINES, DEFAULT_INTERVAL_NANOS, System::nanoTime);
  }

  /** The API server said the token is not authenticated, with {@code error}. */
  void rejected(final String error) {
    log(rejected, "token review rejected token", "rejected-token", error);
  }

  /** The review could not be had ({@code reason}: the transport's or the API's error). */
  void unavailable(final String reason) {
    log(unavailable, "token review unavailable", "review-unavailable", reason);
  }

  private static void log(
      final LogRateLimiter limiter, final String what, final String kind, final String detail) {
    final long suppressed = limiter.acquire();
    if (suppressed == 0) {
      LOG.warn("{}: {}", what, detail);
    } else if (suppressed > 0) {
      LOG.warn(
          "{}: {} ({} more {} lines suppressed since the last one)",
          what,
          detail,
          suppressed,
          kind);
    }
  }

  /** Rejected-token lines suppressed and not yet reported (for tests). */
  long pendingRejected() {
    return rejected.pendingSuppressed();
  }
}
