package io.inferencecache.controlplane.server.auth;

import io.inferencecache.controlplane.server.metrics.AuthMetrics;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Authenticates one endpoint's requests (docs/behaviour.md#auth): {@code Authorization: Bearer
 * <token>} (scheme case-insensitive, token trimmed and non-empty), a cache hit or a TokenReview for
 * this endpoint's audience, and the expected service-account username. Fails closed: a review that
 * cannot be had is {@link Decision#UNAVAILABLE}. Records exactly one {@link AuthMetrics} result per
 * call.
 *
 * <p>Bounded under a flood of distinct tokens: reviews run under a semaphore shared by every
 * endpoint; a request that cannot get a permit within the wait budget is answered {@code 503} at
 * once instead of queueing a thread, and only successful reviews enter the (bounded) cache. The
 * WARN lines of rejected tokens and failed reviews go through an {@link AuthLog} (shared by every
 * endpoint), which bounds their number per interval; the metrics still count every request.
 * Thread-safe.
 */
public final class BearerAuthenticator {
  /** The outcome of one request's authentication. */
  public enum Decision {
    /** Authenticated as the expected service account. */
    ALLOW(0, "", AuthMetrics.Result.OK),
    /** No, malformed or invalid credentials: 401 {@code unauthorized}. */
    UNAUTHORIZED(401, "unauthorized", AuthMetrics.Result.UNAUTH),
    /** A valid token of another identity: 403 {@code forbidden}. */
    FORBIDDEN(403, "forbidden", AuthMetrics.Result.FORBIDDEN),
    /** The review could not be had: 503 {@code token review unavailable}. */
    UNAVAILABLE(503, "token review unavailable", AuthMetrics.Result.ERROR);

    private final int status;
    private final String message;
    private final AuthMetrics.Result result;

    Decision(final int status, final String message, final AuthMetrics.Result result) {
      this.status = status;
      this.message = message;
      this.result = result;
    }

    public int status() {
      return status;
    }

    public String message() {
      return message;
    }
  }

  private final TokenReviewer reviewer;
  private final String audience;
  private final String expectedUsername;
  private final TokenCache cache;
  private final Semaphore reviews;
  private final long reviewWaitNanos;
  private final AuthMetrics metrics;
  private final AuthLog log;

  /**
   * @param audience the audience to review for; empty sends none
   * @param expectedUsername the only username admitted (non-empty)
   * @param reviews permits for concurrent reviews (shared across endpoints)
   * @param reviewWaitNanos how long a request may wait for a permit
   * @param log the rate-limited WARN lines (shared across endpoints)
   */
  public BearerAuthenticator(
      final TokenReviewer reviewer,
      final String audience,
      final String expectedUsername,
      final TokenCache cache,
      final Semaphore reviews,
      final long reviewWaitNanos,
      final AuthMetrics metrics,
      final AuthLog log) {
    this.reviewer = Objects.requireNonNull(reviewer, "reviewer");
    this.audience = audience == null ? "" : audience;
    if (expectedUsername == null || expectedUsername.isEmpty()) {
      throw new IllegalArgumentException("an expected service account is required");
    }
    this.expectedUsername = expectedUsername;
    this.cache = Objects.requireNonNull(cache, "cache");
    this.reviews = Objects.requireNonNull(reviews, "reviews");
    this.reviewWaitNanos = reviewWaitNanos;
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.log = Objects.requireNonNull(log, "log");
  }

  /** Decides for the request's {@code Authorization} header value (may be {@code null}). */
  public Decision authenticate(final String authorization) {
    final Decision d = decide(authorization);
    metrics.record(d.result);
    return d;
  }

  private Decision decide(final String authorization) {
    final String token = bearerToken(authorization);
    if (token == null) {
      return Decision.UNAUTHORIZED;
    }
    final String key = TokenCache.key(token);
    if (cache.contains(key)) {
      return Decision.ALLOW;
    }
    final boolean permitted;
    try {
      permitted = reviews.tryAcquire(reviewWaitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Decision.UNAVAILABLE;
    }
    if (!permitted) {
      return Decision.UNAVAILABLE;
    }
    final TokenReviewer.Review review;
    try {
      review = reviewer.review(token, audience);
    } catch (IOException | RuntimeException e) {
      log.unavailable(String.valueOf(e.getMessage()));
      return Decision.UNAVAILABLE;
    } finally {
      reviews.release();
    }
    if (review == null) {
      return Decision.UNAVAILABLE;
    }
    if (!review.authenticated()) {
      if (!review.error().isEmpty()) {
        log.rejected(review.error());
      }
      return Decision.UNAUTHORIZED;
    }
    if (!expectedUsername.equals(review.username())) {
      return Decision.FORBIDDEN;
    }
    cache.put(key);
    return Decision.ALLOW;
  }

  /** The trimmed token of a {@code Bearer} header, or {@code null}. */
  static String bearerToken(final String header) {
    if (header == null) {
      return null;
    }
    final int sp = header.indexOf(' ');
    if (sp < 0 || !"Bearer".equalsIgnoreCase(header.substring(0, sp))) {
      return null;
    }
    final String token = header.substring(sp + 1).strip();
    return token.isEmpty() ? null : token;
  }
}
