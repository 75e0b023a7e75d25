package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.config.ServeOverrides;
import io.inferencecache.controlplane.support.FakeApiServer;
import io.inferencecache.controlplane.support.Http;
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
            .token("intruder", "system:serviceaccount:default:other", CONTROLLER_AUD, POLICY_AUD);
    server =
        TestServer.start(
            ServeOverrides.NONE.allowing(SA),
            "kubernetes:\n  apiServerUrl: "
                + api.url()
                + "\nauth:\n  cacheMaxEntries: 2\nindex:\n  maxEntries: 10000\n");
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
}
