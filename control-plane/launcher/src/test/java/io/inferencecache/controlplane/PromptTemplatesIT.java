package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.resources.PromptTemplateEndpoint;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * RenderTemplate end to end: the whole server (authentication off) on loopback, configured with a
 * tokenizer directory and a tenant key file; templates POSTed to {@code /prompt-templates}, then
 * RenderTemplate, LookupRoute and ReportCacheState over real gRPC (grpc-netty). The first test runs
 * before any template is held (upstream's answer).
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PromptTemplatesIT {
  static final String MODEL = "tiny-model";
  static final String KEY = "a-tenant-key-of-32-bytes-exactly";

  /** A word-level tokenizer: one token per word of its vocabulary, 0 for any other. */
  static final String TOKENIZER_JSON =
      """
      {"version": "1.0", "truncation": null, "padding": null,
       "added_tokens": [{"id": 1, "content": "<s>", "single_word": false, "lstrip": false,
                         "rstrip": false, "normalized": false, "special": true}],
       "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
       "decoder": null,
       "model": {"type": "WordLevel",
                 "vocab": {"<unk>": 0, "<s>": 1, "you": 2, "are": 3, "a": 4, "support": 5,
                           "agent": 6, "for": 7, "the": 8, "cache": 9, "be": 10, "brief": 11},
                 "unk_token": "<unk>"}}
      """;

  /** 50 words; with "\nQ: " 52 stable tokens, three full blocks of 16. */
  static final String SYSTEM = "you are a support agent for the cache be brief ".repeat(5).strip();

  /** 15 words: the prompt has a fourth block past the stable three. */
  static final String QUESTION = "why is the cache cold ".repeat(3).strip();

  static final String BODY =
      """
      {"version":1,"templates":[{"namespace":"team-a","name":"support","modelId":"%s",
        "body":"{{.system}}\\nQ: {{.question}}",
        "slots":[{"name":"system","type":"Stable","required":true},
                 {"name":"question","type":"Mutable","required":true}]}]}
      """
          .formatted(MODEL);

  @TempDir static Path dir;
  static TestServer server;
  static ManagedChannel channel;
  static InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  @BeforeAll
  static void start() throws Exception {
    final Path models = Files.createDirectories(dir.resolve("models").resolve(MODEL));
    Files.writeString(models.resolve("tokenizer.json"), TOKENIZER_JSON);
    final Path key = Files.writeString(dir.resolve("tenant.key"), KEY + "\n");
    server =
        TestServer.start(
            ServeOverrides.NONE.insecure(),
            "engine:\n  tokenizerModelsDir: "
                + dir.resolve("models")
                + "\ntemplates:\n  tenantKeyFile: "
                + key
                + "\n");
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    stub = InferenceCacheGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  static RenderTemplateRequest.Builder render() {
    return RenderTemplateRequest.newBuilder()
        .setTemplateRef("team-a/support")
        .setTenantId("tenant-1")
        .putVariables("system", SYSTEM)
        .putVariables("question", QUESTION);
  }

  @Test
  @Order(1)
  void withNoTemplatesRenderTemplateKeepsUpstreamsAnswer() throws Exception {
    final HttpResponse<String> held =
        call("GET", server.snapshotUrl("/prompt-templates"), null, null);
    assertThat(held.statusCode()).isEqualTo(200);
    assertThat(held.body()).isEqualTo("{\"version\":1,\"templates\":[]}");
    assertThat(stub.renderTemplate(render().build()))
        .isEqualTo(RenderTemplateResponse.newBuilder().setReasonCode("OK").build());
  }

  @Test
  @Order(2)
  void theEndpointAcceptsPostAndPutReadsBackAndRefusesBadBodiesNamingTheField() throws Exception {
    final String url = server.snapshotUrl("/prompt-templates");
    final HttpResponse<String> wrong = call("DELETE", url, null, null);
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("Allow")).hasValue("GET, HEAD, POST, PUT");
    assertThat(call("GET", server.publicUrl("/prompt-templates"), null, null).statusCode())
        .isEqualTo(404);
    final HttpResponse<String> badType =
        call("POST", url, BODY.replace("\"Mutable\"", "\"Volatile\""), null);
    assertThat(badType.statusCode()).isEqualTo(400);
    assertThat(badType.body())
        .isEqualTo(
            "decode prompt templates: templates[0].slots[1].type: must be \"Stable\" or"
                + " \"Mutable\", not \"Volatile\"\n");
    final HttpResponse<String> order =
        call(
            "POST",
            url,
            BODY.replace("{{.system}}\\nQ: {{.question}}", "{{.question}} {{.system}}"),
            null);
    assertThat(order.statusCode()).isEqualTo(400);
    assertThat(order.body())
        .startsWith("decode prompt templates: templates[0].body: Stable slot \"system\"");
    final HttpResponse<String> big =
        call(
            "POST",
            url,
            "{\"version\":1,\"templates\":["
                + " ".repeat(PromptTemplateEndpoint.MAX_BODY_BYTES)
                + "]}",
            null);
    assertThat(big.statusCode()).isEqualTo(400);
    assertThat(big.body())
        .isEqualTo(
            "decode prompt templates: request body over "
                + PromptTemplateEndpoint.MAX_BODY_BYTES
                + " bytes\n");
    for (String method : List.of("PUT", "POST")) {
      final HttpResponse<String> ok = call(method, url, BODY, null);
      assertThat(ok.statusCode()).as(ok.body()).isEqualTo(204);
    }
    final HttpResponse<String> held = call("GET", url, null, null);
    assertThat(held.statusCode()).isEqualTo(200);
    assertThat(held.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/json");
    assertThat(held.body())
        .startsWith("{\"version\":1,\"templates\":[{\"namespace\":\"team-a\",\"name\":\"support\",")
        .containsPattern("\"revision\":\"sha256:[0-9a-f]{16}\"");
    // what GET reads back can be POSTed again as is
    assertThat(call("POST", url, held.body(), null).statusCode()).isEqualTo(204);
  }

  @Test
  @Order(3)
  void renderTemplateAnswersOkNotFoundAndRenderErrorsWithMessages() throws Exception {
    final RenderTemplateResponse ok = stub.renderTemplate(render().build());
    assertThat(ok.getReasonCode()).isEqualTo("OK");
    assertThat(ok.getRenderedPrompt().toStringUtf8()).isEqualTo(SYSTEM + "\nQ: " + QUESTION);
    final String held = call("GET", server.snapshotUrl("/prompt-templates"), null, null).body();
    assertThat(held).contains("\"revision\":\"" + ok.getTemplateRevision() + "\"");
    final Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    assertThat(ok.getTenantNamespace().toByteArray())
        .isEqualTo(mac.doFinal("tenant-1".getBytes(StandardCharsets.UTF_8)));

    final RenderTemplateResponse missing =
        stub.renderTemplate(render().setTemplateRef("team-a/nope").build());
    assertThat(missing.getReasonCode()).isEqualTo("TEMPLATE_NOT_FOUND");
    assertThat(missing.getMessage()).contains("\"team-a/nope\"");

    final RenderTemplateResponse noSlot =
        stub.renderTemplate(render().removeVariables("question").build());
    assertThat(noSlot.getReasonCode()).isEqualTo("RENDER_ERROR");
    assertThat(noSlot.getMessage())
        .isEqualTo("slot \"question\" of template team-a/support is required and has no value");
    final RenderTemplateResponse unknown =
        stub.renderTemplate(render().putVariables("extra", "x").build());
    assertThat(unknown.getReasonCode()).isEqualTo("RENDER_ERROR");
    assertThat(unknown.getMessage()).contains("\"extra\"");
    final RenderTemplateResponse tooBig =
        stub.renderTemplate(render().putVariables("question", "q".repeat(300_000)).build());
    assertThat(tooBig.getReasonCode()).isEqualTo("RENDER_ERROR");
    assertThat(tooBig.getMessage()).contains("slot \"question\"").contains("262144");
  }

  @Test
  @Order(4)
  void theStablePrefixHashLinesUpWithLookupRouteAndHitsTheReplicaHoldingThePrompt()
      throws Exception {
    final RenderTemplateResponse r = stub.renderTemplate(render().build());
    // no chat template: the prompt is tokenized as is, one token per word or mark: 52 stable
    assertThat(r.getStablePrefixTokenCount()).isEqualTo(48);
    assertThat(r.getStableBlockHashesCount()).isEqualTo(3);
    assertThat(r.getStablePrefixHash()).isEqualTo(r.getStableBlockHashes(2));
    final String prompt = r.getRenderedPrompt().toStringUtf8();
    final LookupRouteResponse byText = stub.lookupRoute(scope().setPromptText(prompt).build());
    final int[] tokens = byText.getTokenIdsList().stream().mapToInt(Integer::intValue).toArray();
    final long[] chain = Fingerprint.prefixHashes(tokens, 16);
    assertThat(chain.length).isGreaterThan(3);
    for (int i = 0; i < 3; i++) {
      assertThat(ByteString.copyFrom(Fingerprint.toWire(chain[i])))
          .isEqualTo(r.getStableBlockHashes(i));
    }
    CacheStateReports.send(
        channel,
        10,
        CacheStateReports.chain(
            "vllm-0",
            MODEL,
            "tenant-1",
            chain.length,
            i -> ByteString.copyFrom(Fingerprint.toWire(chain[i]))));
    // the whole prompt's holder, found from the template's stable prefix alone
    final LookupRouteRequest.Builder q = scope();
    for (ByteString h : r.getStableBlockHashesList()) {
      q.addBlockHashes(h).addBlockTokenCounts(16);
    }
    // 48 stable tokens are under the default 64-token matched floor: policy lets 16 through
    assertThat(
            call(
                    "POST",
                    server.snapshotUrl("/policy"),
                    "{\"version\":7,\"policies\":[{\"namespace\":\"tenant-1\",\"minimumMatchedTokens\":16}]}",
                    null)
                .statusCode())
        .isEqualTo(204);
    final LookupRouteResponse hit = stub.lookupRoute(q.build());
    assertThat(hit.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(hit.getReplicaScores(0).getReplicaId()).isEqualTo("vllm-0");
    assertThat(hit.getReplicaScores(0).getMatchedTokens()).isEqualTo(48);
  }

  @Test
  @Order(5)
  void metricsCountAnswersAndStableSlotValues() throws Exception {
    for (int i = 0; i < 3; i++) {
      stub.renderTemplate(render().putVariables("system", SYSTEM + " v" + i).build());
    }
    final PromText p = PromText.parse(get(server.publicUrl("/metrics")).body());
    assertThat(p.types)
        .containsEntry("inferencecache_render_template_total", "counter")
        .containsEntry("inferencecache_template_stable_slot_distinct_values", "gauge");
    assertThat(p.value("inferencecache_render_template_total", Map.of("reason", "OK")))
        .isGreaterThanOrEqualTo(6.0);
    assertThat(
            p.value("inferencecache_render_template_total", Map.of("reason", "TEMPLATE_NOT_FOUND")))
        .isEqualTo(1.0);
    assertThat(p.value("inferencecache_render_template_total", Map.of("reason", "RENDER_ERROR")))
        .isEqualTo(3.0);
    // SYSTEM and three variants of it
    assertThat(
            p.value(
                "inferencecache_template_stable_slot_distinct_values",
                Map.of("namespace", "team-a", "template", "support", "slot", "system")))
        .isBetween(3.9, 4.1);
    assertThat(p.named("inferencecache_template_stable_slot_distinct_values")).hasSize(1);
  }

  static LookupRouteRequest.Builder scope() {
    return LookupRouteRequest.newBuilder()
        .setTenantId("tenant-1")
        .setModelId(MODEL)
        .setHashScheme("vllm");
  }
}
