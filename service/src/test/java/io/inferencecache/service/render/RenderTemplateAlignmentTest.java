package io.inferencecache.service.render;

import static io.inferencecache.service.server.Fixtures.MODEL;
import static io.inferencecache.service.server.Fixtures.SCHEME;
import static io.inferencecache.service.server.Fixtures.TENANT;
import static io.inferencecache.service.server.Fixtures.chainUpdate;
import static io.inferencecache.service.server.Fixtures.request;
import static io.inferencecache.service.server.Fixtures.tokenChain;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.service.prompt.HuggingFaceTokenizers;
import io.inferencecache.service.prompt.HuggingFaceTokenizersTest;
import io.inferencecache.service.server.ServiceHarness;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stable-prefix hash lines up with the engine's block hashes, over real gRPC on loopback
 * (grpc-netty): the chain RenderTemplate returns is a prefix of the chain LookupRoute computes for
 * {@code prompt_text} = the rendered prompt, does not depend on the Mutable slot's value, and a
 * LookupRoute with it (as a chain, and as the single {@code prefix_hash}) hits a replica that
 * reported the prompt's chain.
 */
class RenderTemplateAlignmentTest {
  static final int BLOCK = 16;

  /** 80 words of the test vocabulary: 5 full blocks of 16, so past the default 64-token floor. */
  static final String SYSTEM = "hello world the cache ".repeat(20).strip();

  @TempDir Path dir;
  HuggingFaceTokenizers tokenizers;
  ServiceHarness h;
  TemplateStore store;

  @BeforeEach
  void start() throws Exception {
    HuggingFaceTokenizersTest.writeModel(dir, MODEL, true); // with a chat template
    tokenizers = HuggingFaceTokenizers.load(dir);
    h =
        new ServiceHarness(
            new ServiceHarness.Options()
                .tokenizer(tokenizers)
                .blockSize(BLOCK)
                .transport(ServiceHarness.Transport.NETTY_ZERO_COPY));
    store = new TemplateStore();
    store.replace(
        List.of(
            PromptTemplate.compile(
                "team-a",
                "support",
                new PromptTemplateSpec(
                    MODEL,
                    "{{.system}}\nUser: {{.question}}",
                    List.of(
                        new Slot("system", SlotType.STABLE, true),
                        new Slot("question", SlotType.MUTABLE, true))))));
    h.service.renderTemplates(
        new RenderTemplates(store, tokenizers, BLOCK, TenantKey.NONE, RenderMetrics.NOOP));
  }

  @AfterEach
  void stop() {
    h.close();
    tokenizers.close();
  }

  RenderTemplateResponse render(final String question) {
    return h.stub.renderTemplate(
        RenderTemplateRequest.newBuilder()
            .setTemplateRef("team-a/support")
            .setTenantId(TENANT)
            .putVariables("system", SYSTEM)
            .putVariables("question", question)
            .build());
  }

  @Test
  void theStableChainIsAPrefixOfLookupRoutesPromptTextChainAndHitsItsHolder() throws Exception {
    final String question = "hello the world cache hello ".repeat(4).strip();
    final RenderTemplateResponse r = render(question);
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getMessage()).isEmpty();
    final String prompt = r.getRenderedPrompt().toString(StandardCharsets.UTF_8);
    assertThat(prompt).isEqualTo(SYSTEM + "\nUser: " + question);
    // <s> <| user |> + 80 words: 84 tokens lie wholly inside the stable prefix → 5 blocks
    assertThat(r.getStablePrefixTokenCount()).isEqualTo(5 * BLOCK);
    assertThat(r.getStableBlockHashesList()).hasSize(5);
    assertThat(r.getStablePrefixHash()).isEqualTo(r.getStableBlockHashes(4));

    // LookupRoute with prompt_text = the rendered prompt: the server tokenizes and echoes
    final LookupRouteResponse byText = h.stub.lookupRoute(request().setPromptText(prompt).build());
    final int[] tokens = byText.getTokenIdsList().stream().mapToInt(Integer::intValue).toArray();
    final List<ByteString> promptChain = tokenChain(tokens, BLOCK);
    assertThat(promptChain.size()).isGreaterThan(5);
    assertThat(promptChain.subList(0, 5)).isEqualTo(r.getStableBlockHashesList());

    // a replica that reported the prompt's chain is found with the stable chain or hash alone
    h.report(chainUpdate("replica-a", promptChain, BLOCK));
    final var chainLookup = request();
    for (ByteString b : r.getStableBlockHashesList()) {
      chainLookup.addBlockHashes(b).addBlockTokenCounts(BLOCK);
    }
    final LookupRouteResponse byChain = h.stub.lookupRoute(chainLookup.build());
    assertThat(byChain.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(byChain.getReplicaScoresList())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getReplicaId()).isEqualTo("replica-a");
              assertThat(s.getMatchedTokens()).isEqualTo(5 * BLOCK);
            });
    final LookupRouteResponse byHash =
        h.stub.lookupRoute(
            request()
                .setPrefixHash(r.getStablePrefixHash())
                .setPrefixTokenCount(r.getStablePrefixTokenCount())
                .build());
    assertThat(byHash.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(byHash.getReplicaScores(0).getReplicaId()).isEqualTo("replica-a");
    assertThat(SCHEME).isEqualTo("vllm");
  }

  @Test
  void theStableChainDoesNotDependOnTheMutableValue() {
    final List<List<ByteString>> chains = new ArrayList<>();
    for (String q : List.of("hello", "the cache the cache the cache world", "unknown words here")) {
      chains.add(render(q).getStableBlockHashesList());
    }
    assertThat(chains.get(0)).hasSize(5);
    assertThat(chains).allSatisfy(c -> assertThat(c).isEqualTo(chains.get(0)));
  }

  @Test
  void withoutATokenizerForTheModelTheHashIsEmptyAndTheMessageSaysWhy() {
    final RenderTemplateResponse r =
        h.stub.renderTemplate(
            RenderTemplateRequest.newBuilder()
                .setTemplateRef("team-a/support")
                .setModelId("other-model")
                .putAllVariables(Map.of("system", SYSTEM, "question", "q"))
                .build());
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getRenderedPrompt().isEmpty()).isFalse();
    assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    assertThat(r.getStableBlockHashesList()).isEmpty();
    assertThat(r.getStablePrefixTokenCount()).isZero();
    assertThat(r.getMessage())
        .isEqualTo("no tokenizer for model \"other-model\": stable_prefix_hash left empty");
  }

  @Test
  void aStablePrefixShorterThanABlockGivesNoHash() {
    final RenderTemplateResponse r =
        h.stub.renderTemplate(
            RenderTemplateRequest.newBuilder()
                .setTemplateRef("team-a/support")
                .putAllVariables(Map.of("system", "hello world", "question", "q"))
                .build());
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    assertThat(r.getMessage()).contains("less than one block of 16");
  }
}
