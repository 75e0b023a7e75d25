package io.inferencecache.controlplane.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.server.auth.BearerAuthenticator.Decision;
import io.inferencecache.controlplane.server.metrics.AuthMetrics;
import io.inferencecache.controlplane.support.LogCapture;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BearerAuthenticatorTest {
  private static final String SA = "system:serviceaccount:ic:controller";

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicInteger reviews = new AtomicInteger();
  private final List<String> audiences = new ArrayList<>();
  private final MetricRegistry registry = new MetricRegistry();
  private final AuthLog authLog =
      new AuthLog(AuthLog.DEFAULT_MAX_LINES, AuthLog.DEFAULT_INTERVAL_NANOS, now::get);

  private final TokenReviewer fake =
      (token, audience) -> {
        reviews.incrementAndGet();
        synchronized (audiences) {
          audiences.add(audience);
        }
        return switch (token) {
          case "good", "good2", "good3" -> new TokenReviewer.Review(true, SA, "");
          case "other" -> new TokenReviewer.Review(true, "system:serviceaccount:x:y", "");
          case "down" -> throw new IOException("connection refused");
          default -> new TokenReviewer.Review(false, "", "token expired");
        };
      };

  private BearerAuthenticator auth(final TokenReviewer reviewer, final int cap, final String aud) {
    return new BearerAuthenticator(
        reviewer,
        aud,
        SA,
        new TokenCache(TokenCache.DEFAULT_TTL_NANOS, cap, now::get),
        new Semaphore(4),
        TimeUnit.MILLISECONDS.toNanos(50),
        new AuthMetrics(registry, MetricFamily.SNAPSHOT_AUTH),
        authLog);
  }

  private long count(final String result) {
    return registry.counter(MetricFamily.SNAPSHOT_AUTH.registryName(result)).getCount();
  }

  @Test
  void rejectsAndAdmitsLikeUpstream() {
    final BearerAuthenticator a = auth(fake, 32, "aud");
    assertThat(a.authenticate(null)).isEqualTo(Decision.UNAUTHORIZED);
    assertThat(a.authenticate("Bearer ")).isEqualTo(Decision.UNAUTHORIZED);
    assertThat(a.authenticate("Bearer    ")).isEqualTo(Decision.UNAUTHORIZED);
    assertThat(a.authenticate("Basic Zm9vOmJhcg==")).isEqualTo(Decision.UNAUTHORIZED);
    assertThat(a.authenticate("Bearer bad")).isEqualTo(Decision.UNAUTHORIZED);
    assertThat(a.authenticate("Bearer other")).isEqualTo(Decision.FORBIDDEN);
    assertThat(a.authenticate("Bearer down")).isEqualTo(Decision.UNAVAILABLE);
    assertThat(a.authenticate("bearer good")).isEqualTo(Decision.ALLOW);
    assertThat(a.authenticate("BEARER  good2 ")).isEqualTo(Decision.ALLOW);
    assertThat(count("unauth")).isEqualTo(5);
    assertThat(count("forbidden")).isEqualTo(1);
    assertThat(count("error")).isEqualTo(1);
    assertThat(count("ok")).isEqualTo(2);
    assertThat(audiences).containsOnly("aud");
  }

  @Test
  void emptyAudienceIsPassedThrough() {
    auth(fake, 32, "").authenticate("Bearer good");
    assertThat(audiences).containsExactly("");
  }

  @Test
  void cachesValidatedTokensForTheTtl() {
    final BearerAuthenticator a = auth(fake, 32, "aud");
    assertThat(a.authenticate("Bearer good")).isEqualTo(Decision.ALLOW);
    assertThat(a.authenticate("Bearer good")).isEqualTo(Decision.ALLOW);
    assertThat(reviews).hasValue(1);
    a.authenticate("Bearer good2");
    assertThat(reviews).hasValue(2);
    now.addAndGet(TokenCache.DEFAULT_TTL_NANOS);
    a.authenticate("Bearer good");
    assertThat(reviews).hasValue(3);
  }

  @Test
  void failedReviewsAreNeverCached() {
    final BearerAuthenticator a = auth(fake, 32, "aud");
    a.authenticate("Bearer bad");
    a.authenticate("Bearer bad");
    a.authenticate("Bearer other");
    a.authenticate("Bearer other");
    assertThat(reviews).hasValue(4);
  }

  @Test
  void cacheEvictsSoonestExpiringWhenOverCap() {
    final TokenCache cache = new TokenCache(100, 2, now::get);
    cache.put("a");
    now.addAndGet(10);
    cache.put("b");
    now.addAndGet(10);
    cache.put("c");
    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.contains("a")).isFalse();
    assertThat(cache.contains("b")).isTrue();
    assertThat(cache.contains("c")).isTrue();
    now.addAndGet(95);
    cache.put("d");
    assertThat(cache.contains("b")).isFalse();
    assertThat(cache.contains("c")).isTrue();
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void floodOfJunkTokensNeitherEvictsAValidTokenNorQueuesThreads() throws Exception {
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger inReview = new AtomicInteger();
    final AtomicInteger maxInReview = new AtomicInteger();
    final TokenReviewer slow =
        (token, audience) -> {
          if (token.equals("good")) {
            return new TokenReviewer.Review(true, SA, "");
          }
          maxInReview.accumulateAndGet(inReview.incrementAndGet(), Math::max);
          try {
            release.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          inReview.decrementAndGet();
          return new TokenReviewer.Review(false, "", "");
        };
    final BearerAuthenticator a = auth(slow, 2, "aud");
    assertThat(a.authenticate("Bearer good")).isEqualTo(Decision.ALLOW);
    final List<Thread> flood = new ArrayList<>();
    final AtomicInteger unavailable = new AtomicInteger();
    for (int i = 0; i < 32; i++) {
      final String token = "junk-" + i;
      final Thread t =
          new Thread(
              () -> {
                if (a.authenticate("Bearer " + token) == Decision.UNAVAILABLE) {
                  unavailable.incrementAndGet();
                }
              });
      flood.add(t);
      t.start();
    }
    // While the flood holds every review permit, the cached token still gets in at once.
    assertThat(a.authenticate("Bearer good")).isEqualTo(Decision.ALLOW);
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> unavailable.get() >= 28);
    release.countDown();
    for (final Thread t : flood) {
      t.join(10_000);
    }
    assertThat(maxInReview.get()).isLessThanOrEqualTo(4);
    assertThat(unavailable.get()).isGreaterThanOrEqualTo(28);
    assertThat(a.authenticate("Bearer good")).isEqualTo(Decision.ALLOW);
  }

  @Test
  void tokenCacheKeyIsSha256Hex() {
    assertThat(TokenCache.key("abc"))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void floodOfRejectedTokensLogsABoundedNumberOfLinesAndCountsEveryOne() {
    final BearerAuthenticator a = auth(fake, 2, "aud");
    try (LogCapture logs = LogCapture.of(BearerAuthenticator.class)) {
      for (int i = 0; i < 1_000; i++) {
        assertThat(a.authenticate("Bearer junk-" + i)).isEqualTo(Decision.UNAUTHORIZED);
      }
      // 10 lines per 10 s (the defaults), every rejection counted.
      assertThat(logs.messages(Level.WARN))
          .hasSize(10)
          .containsOnly("token review rejected token: token expired");
      assertThat(count("unauth")).isEqualTo(1_000);
      assertThat(authLog.pendingRejected()).isEqualTo(990);

      // Still inside the window: nothing more is logged.
      now.addAndGet(AuthLog.DEFAULT_INTERVAL_NANOS - 1);
      a.authenticate("Bearer junk-x");
      assertThat(logs.messages(Level.WARN)).hasSize(10);

      // The next window's first line says how many were left out since the last line.
      now.addAndGet(1);
      for (int i = 0; i < 5; i++) {
        a.authenticate("Bearer late-" + i);
      }
      final List<String> warn = logs.messages(Level.WARN);
      assertThat(warn).hasSize(15);
      assertThat(warn.get(10))
          .isEqualTo(
              "token review rejected token: token expired (991 more rejected-token lines"
                  + " suppressed since the last one)");
      assertThat(warn.subList(11, 15)).containsOnly("token review rejected token: token expired");
      assertThat(count("unauth")).isEqualTo(1_006);
      assertThat(authLog.pendingRejected()).isZero();
    }
  }

  @Test
  void failedReviewsHaveTheirOwnBoundedBudget() {
    final BearerAuthenticator a = auth(fake, 2, "aud");
    try (LogCapture logs = LogCapture.of(BearerAuthenticator.class)) {
      for (int i = 0; i < 25; i++) {
        assertThat(a.authenticate("Bearer down")).isEqualTo(Decision.UNAVAILABLE);
      }
      // A rejected token is still logged: the two kinds of line do not share a budget.
      a.authenticate("Bearer bad");
      final List<String> warn = logs.messages(Level.WARN);
      assertThat(warn).hasSize(11);
      assertThat(warn.subList(0, 10)).containsOnly("token review unavailable: connection refused");
      assertThat(warn.get(10)).isEqualTo("token review rejected token: token expired");
      assertThat(count("error")).isEqualTo(25);
      now.addAndGet(AuthLog.DEFAULT_INTERVAL_NANOS);
      a.authenticate("Bearer down");
      assertThat(logs.messages(Level.WARN).get(11))
          .isEqualTo(
              "token review unavailable: connection refused (15 more review-unavailable lines"
                  + " suppressed since the last one)");
    }
  }
}
