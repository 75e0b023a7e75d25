package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.server.auth.BearerAuthenticator;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.FakeApiServer;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.LogCapture;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Authentication of the snapshot listener against a stand-in TokenReview endpoint. */
@Timeout(120)
class AuthIT {
  private static final String SA =
      "system:serviceaccount:inference-cache-system:inference-cache-controller-manager";
  private static final String CONTROLLER_AUD = "inferencecache.io/controller";
  private static final String POLICY_AUD = "inferencecache.io/policy";
  private static final String POLICY = "{\"version\":7,\"policies\":[]}";
  private static final String PROBE = "{\"backend\":\"b\",\"model\":\"m\",\"hashScheme\":\"vllm\"}";

  private FakeApiServer api;
  private TestServer server;

  @BeforeEach
  void start() throws Exception {
    api =
        new FakeApiServer()
            .token("controller", SA, CONTROLLER_AUD, POLICY_AUD)
            .token("controller-only", SA, CONTROLLER_AUD)
            .token("a", SA, CONTROLLER_AUD)
            .token("b", SA, CONTROLLER_AUD)
            .token("c", SA, CONTROLLER_AUD)
            .token("intruder", "system:serviceaccount:default:other", CONTROLLER_AUD, POLICY_AUD)
            .token("old", SA, CONTROLLER_AUD, POLICY_AUD)
            .expired("old");
    server =
        TestServer.start(
            ServeOverrides.NONE.allowing(SA),
            "kubernetes:\n  apiServerUrl: "
                + api.url()
                + "\nauth:\n  cacheMaxEntries: 2\n"
                // The defaults, spelled out: the flood test's log bound depends on them.
                + "  rejectionLogLimit: 10\n  rejectionLogInterval: 10s\n"
                + "index:\n  maxEntries: 10000\n");
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    api.close();
  }

  private HttpResponse<String> snapshot(final String auth) throws Exception {
    return call("GET", server.snapshotUrl("/snapshot"), null, auth);
  }

  @Test
  void rejectsMissingMalformedAndInvalidCredentials() throws Exception {
    for (final String header :
        new String[] {
          null, "Bearer", "Bearer ", "Bearer   ", "Basic Y29udHJvbGxlcg==", "Bearer nope"
        }) {
      final HttpResponse<String> r = snapshot(header);
      assertThat(r.statusCode()).as(String.valueOf(header)).isEqualTo(401);
      assertThat(r.body()).isEqualTo("unauthorized\n");
    }
    assertThat(snapshot("bearer controller").statusCode()).isEqualTo(200);
    assertThat(snapshot("BEARER  controller ").statusCode()).isEqualTo(200);
  }

  @Test
  void audiencesArePerEndpoint() throws Exception {
    assertThat(snapshot("Bearer controller-only").statusCode()).isEqualTo(200);
    assertThat(
            call("POST", server.snapshotUrl("/probe"), PROBE, "Bearer controller-only")
                .statusCode())
        .isEqualTo(200);
    final HttpResponse<String> policy =
        call("POST", server.snapshotUrl("/policy"), POLICY, "Bearer controller-only");
    assertThat(policy.statusCode()).isEqualTo(401);
    assertThat(
            call("POST", server.snapshotUrl("/policy"), POLICY, "Bearer controller").statusCode())
        .isEqualTo(204);
    assertThat(api.seenAudiences()).contains(CONTROLLER_AUD, POLICY_AUD);
  }

  @Test
  void pdTopologiesTakeThePolicyAudienceOnThePolicyListener() throws Exception {
    final String url = server.snapshotUrl("/pd-topologies");
    final String body = "{\"version\":1,\"topologies\":[]}";
    assertThat(call("GET", url, null, null).statusCode()).isEqualTo(401);
    assertThat(call("POST", url, body, "Bearer controller-only").statusCode()).isEqualTo(401);
    assertThat(call("POST", url, body, "Bearer intruder").statusCode()).isEqualTo(403);
    assertThat(call("POST", url, body, "Bearer controller").statusCode()).isEqualTo(204);
    assertThat(call("GET", url, null, "Bearer controller").body()).isEqualTo(body);
  }

  @Test
  void wrongServiceAccountIsForbidden() throws Exception {
    final HttpResponse<String> r =
        call("POST", server.snapshotUrl("/policy"), POLICY, "Bearer intruder");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("forbidden\n");
  }

  @Test
  void authenticationComesBeforeMethodAndBody() throws Exception {
    assertThat(call("POST", server.snapshotUrl("/snapshot"), null, null).statusCode())
        .isEqualTo(401);
    assertThat(call("GET", server.snapshotUrl("/policy"), null, null).statusCode()).isEqualTo(401);
    assertThat(call("POST", server.snapshotUrl("/probe"), "garbage", null).statusCode())
        .isEqualTo(401);
    final HttpResponse<String> r =
        call("POST", server.snapshotUrl("/snapshot"), null, "Bearer controller");
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("GET");
  }

  @Test
  void cachedTokensSkipTheReviewAndTheCacheIsCapped() throws Exception {
    assertThat(snapshot("Bearer a").statusCode()).isEqualTo(200);
    final int afterFirst = api.reviews();
    assertThat(snapshot("Bearer a").statusCode()).isEqualTo(200);
    assertThat(api.reviews()).isEqualTo(afterFirst);
    // Cap 2: b then c push a (the soonest to expire) out; a is reviewed again.
    snapshot("Bearer b");
    snapshot("Bearer c");
    final int beforeA = api.reviews();
    assertThat(snapshot("Bearer a").statusCode()).isEqualTo(200);
    assertThat(api.reviews()).isEqualTo(beforeA + 1);
  }

  @Test
  void reviewEndpointDownFailsClosedButCachedTokensStillPass() throws Exception {
    assertThat(snapshot("Bearer controller").statusCode()).isEqualTo(200);
    api.stop();
    final HttpResponse<String> r = snapshot("Bearer a");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).isEqualTo("token review unavailable\n");
    assertThat(snapshot("Bearer controller").statusCode()).isEqualTo(200);
  }

  @Test
  void countersMoveOncePerRequestIncluding405s() throws Exception {
    snapshot(null);
    snapshot("Bearer controller");
    call("POST", server.snapshotUrl("/snapshot"), null, "Bearer controller");
    call("POST", server.snapshotUrl("/policy"), POLICY, "Bearer intruder");
    call("POST", server.snapshotUrl("/probe"), PROBE, "Bearer controller");
    final PromText p = PromText.parse(Http.get(server.publicUrl("/metrics")).body());
    assertThat(p.value("inferencecache_snapshot_auth_total", Map.of("result", "unauth")))
        .isEqualTo(1.0);
    assertThat(p.value("inferencecache_snapshot_auth_total", Map.of("result", "ok")))
        .isEqualTo(2.0);
    assertThat(p.value("inferencecache_policy_auth_total", Map.of("result", "forbidden")))
        .isEqualTo(1.0);
    assertThat(p.value("inferencecache_probe_auth_total", Map.of("result", "ok"))).isEqualTo(1.0);
    assertThat(p.types).containsEntry("inferencecache_snapshot_auth_total", "counter");
    assertThat(List.of("ok", "unauth")).isNotEmpty();
  }

  /** A JWT-shaped token with a made-up payload and signature: the API server does not know it. */
  private static final String FORGED =
      "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZvcmdlZCJ9."
          + java.util.Base64.getUrlEncoder()
              .withoutPadding()
              .encodeToString(
                  ("{\"sub\":\"" + SA + "\",\"aud\":[\"" + CONTROLLER_AUD + "\"]}")
                      .getBytes(java.nio.charset.StandardCharsets.UTF_8))
          + ".c2lnbmF0dXJl";

  @Test
  void expiredAndForgedTokensAreUnauthorizedOnEveryEndpoint() throws Exception {
    for (final String token : new String[] {"old", FORGED}) {
      assertThat(snapshot("Bearer " + token).statusCode()).as(token).isEqualTo(401);
      assertThat(
              call("POST", server.snapshotUrl("/policy"), POLICY, "Bearer " + token).statusCode())
          .as(token)
          .isEqualTo(401);
      assertThat(call("POST", server.snapshotUrl("/probe"), PROBE, "Bearer " + token).statusCode())
          .as(token)
          .isEqualTo(401);
    }
    // Rejections never enter the cache: each attempt is reviewed again.
    final int before = api.reviews();
    assertThat(snapshot("Bearer old").statusCode()).isEqualTo(401);
    assertThat(api.reviews()).isEqualTo(before + 1);
  }

  @Test
  void slowReviewIsA503WithinTheClientTimeoutAndCachedTokensStillPass() throws Exception {
    try (TestServer s =
        TestServer.start(
            ServeOverrides.NONE.allowing(SA),
            "kubernetes:\n  apiServerUrl: "
                + api.url()
                + "\n  requestTimeout: 1s\n  connectTimeout: 1s\nindex:\n  maxEntries: 10000\n")) {
      assertThat(call("GET", s.snapshotUrl("/snapshot"), null, "Bearer controller").statusCode())
          .isEqualTo(200);
      api.delay(10_000);
      // 12 distinct tokens at once: 4 reviews in flight time out after ~1 s, the rest are refused
      // after the 250 ms permit wait. Every answer is a 503 well before the slow server answers.
      final java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(12);
      try {
        final long t0 = System.nanoTime();
        final List<java.util.concurrent.Future<Integer>> answers = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
          final String token = "slow-" + i;
          answers.add(
              pool.submit(
                  () ->
                      call("GET", s.snapshotUrl("/snapshot"), null, "Bearer " + token)
                          .statusCode()));
        }
        for (java.util.concurrent.Future<Integer> a : answers) {
          assertThat(a.get(8, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(503);
        }
        final long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).as("all answered in ms").isLessThan(6_000);
        // A cached token needs no review: still 200 at once while the API server is slow.
        final long t1 = System.nanoTime();
        assertThat(call("GET", s.snapshotUrl("/snapshot"), null, "Bearer controller").statusCode())
            .isEqualTo(200);
        assertThat((System.nanoTime() - t1) / 1_000_000).isLessThan(2_000);
      } finally {
        pool.shutdownNow();
        api.delay(0);
      }
      final PromText p = PromText.parse(Http.get(s.publicUrl("/metrics")).body());
      assertThat(p.value("inferencecache_snapshot_auth_total", Map.of("result", "error")))
          .isEqualTo(12.0);
    }
  }

  @Test
  void floodOfDistinctTokensIsBoundedCountedAndEvictsNoCachedToken() throws Exception {
    assertThat(snapshot("Bearer a").statusCode()).isEqualTo(200);
    assertThat(snapshot("Bearer b").statusCode()).isEqualTo(200);
    final int threadsBefore = Thread.activeCount();
    final int n = 400;
    final LogCapture logs = LogCapture.of(BearerAuthenticator.class);
    final long floodStart = System.nanoTime();
    final java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(16);
    final java.util.concurrent.ConcurrentHashMap<Integer, java.util.concurrent.atomic.AtomicInteger>
        codes = new java.util.concurrent.ConcurrentHashMap<>();
    final java.security.SecureRandom rnd = new java.security.SecureRandom();
    try {
      final List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        final byte[] b = new byte[24];
        rnd.nextBytes(b);
        final String token = java.util.HexFormat.of().formatHex(b);
        done.add(
            pool.submit(
                () -> {
                  final int code = snapshot("Bearer " + token).statusCode();
                  codes
                      .computeIfAbsent(code, c -> new java.util.concurrent.atomic.AtomicInteger())
                      .incrementAndGet();
                  return null;
                }));
      }
      // The public listener stays responsive during the flood.
      assertThat(Http.get(server.publicUrl("/healthz")).statusCode()).isEqualTo(200);
      for (java.util.concurrent.Future<?> f : done) {
        f.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      logs.close();
    }
    final long floodNanos = System.nanoTime() - floodStart;
    // Only 401 (reviewed, rejected) or 503 (no review permit within the wait): never a 200 or 500.
    assertThat(codes.keySet()).isSubsetOf(401, 503);
    final PromText p = PromText.parse(Http.get(server.publicUrl("/metrics")).body());
    final double unauth = p.value("inferencecache_snapshot_auth_total", Map.of("result", "unauth"));
    final Double error = p.value("inferencecache_snapshot_auth_total", Map.of("result", "error"));
    assertThat(unauth + (error == null ? 0 : error)).isEqualTo(n);
    assertThat(p.value("inferencecache_snapshot_auth_total", Map.of("result", "ok")))
        .isEqualTo(2.0);
    // The cached tokens survived the flood (cap 2, TTL 30 s): no new review for them.
    final int reviews = api.reviews();
    assertThat(snapshot("Bearer a").statusCode()).isEqualTo(200);
    assertThat(snapshot("Bearer b").statusCode()).isEqualTo(200);
    assertThat(api.reviews()).isEqualTo(reviews);
    // No thread growth beyond the client pool that made the flood.
    assertThat(Thread.activeCount()).isLessThan(threadsBefore + 40);
    // Log volume is bounded: at most 10 rejected-token lines per 10 s window (the defaults; a
    // window opens at the first rejection), and a line after suppressed ones says how many. Every
    // line plus every reported suppression accounts for one 401, never more.
    final int rejected401 =
        codes.getOrDefault(401, new java.util.concurrent.atomic.AtomicInteger()).get();
    final List<String> lines =
        logs.messages(ch.qos.logback.classic.Level.WARN).stream()
            .filter(m -> m.startsWith("token review rejected token: "))
            .toList();
    final long windows = floodNanos / java.util.concurrent.TimeUnit.SECONDS.toNanos(10) + 1;
    assertThat(lines).hasSizeLessThanOrEqualTo((int) (10 * windows));
    if (rejected401 > 0) {
      assertThat(lines).isNotEmpty();
    }
    final java.util.regex.Pattern more =
        java.util.regex.Pattern.compile("\\((\\d+) more rejected-token lines suppressed");
    long reported = 0;
    for (final String line : lines) {
      final java.util.regex.Matcher m = more.matcher(line);
      if (m.find()) {
        reported += Long.parseLong(m.group(1));
      }
    }
    assertThat(lines.size() + reported).isLessThanOrEqualTo(rejected401);
    if (windows == 1 && rejected401 > 10) {
      assertThat(lines).hasSize(10);
    }
  }
}
