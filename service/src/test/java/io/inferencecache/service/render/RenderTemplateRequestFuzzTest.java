package io.inferencecache.service.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.service.prompt.HuggingFaceTokenizers;
import io.inferencecache.service.prompt.HuggingFaceTokenizersTest;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateRules;
import io.inferencecache.templates.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes RenderTemplate's request, its new {@code model_id} field included: any bytes parsed as a
 * RenderTemplateRequest and answered by {@link RenderTemplates} over two held templates and a real
 * tokenizer (model {@code m}, with a chat template). Whatever the request: the handler returns
 * (never throws); the reason is one of the three; {@code TEMPLATE_NOT_FOUND} and {@code
 * RENDER_ERROR} carry a message and no prompt; an {@code OK} prompt is at most {@link
 * TemplateRules#MAX_RENDERED_BYTES}; the stable chain has 8-byte hashes, its last is {@code
 * stable_prefix_hash} and it covers {@code 16 ×} its length tokens.
 *
 * <p>Regression mode (CI) replays {@code RenderTemplateRequestFuzzTestInputs/answer/}; fuzz with
 * {@code JAZZER_FUZZ=1} (docs/reliability.md).
 */
class RenderTemplateRequestFuzzTest {
  private static final Set<String> REASONS = Set.of("OK", "TEMPLATE_NOT_FOUND", "RENDER_ERROR");
  static Path dir;
  static HuggingFaceTokenizers tokenizers;
  static RenderTemplates handler;

  @BeforeAll
  static void setUp() throws Exception {
    dir = Files.createTempDirectory("render-fuzz");
    HuggingFaceTokenizersTest.writeModel(dir, "m", true);
    tokenizers = HuggingFaceTokenizers.load(dir);
    final TemplateStore store = new TemplateStore();
    store.replace(
        List.of(
            PromptTemplate.compile(
                "ns",
                "t",
                new PromptTemplateSpec(
                    "m",
                    "{{.system}} user {{.question}}",
                    List.of(
                        new Slot("system", SlotType.STABLE, true),
                        new Slot("question", SlotType.MUTABLE, false)))),
            PromptTemplate.compile(
                "ns",
                "plain",
                new PromptTemplateSpec(
                    "", "hello {{ .a }}", List.of(new Slot("a", SlotType.STABLE, false))))));
    handler =
        new RenderTemplates(
            store,
            tokenizers,
            16,
            TenantKey.of("fuzz-key-0123456789".getBytes(StandardCharsets.UTF_8)),
            RenderMetrics.NOOP);
  }

  @AfterAll
  static void tearDown() throws Exception {
    tokenizers.close();
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @FuzzTest(maxDuration = "2m")
  void answer(final byte[] bytes) {
    final RenderTemplateRequest request;
    try {
      request = RenderTemplateRequest.parseFrom(bytes);
    } catch (InvalidProtocolBufferException expected) {
      return;
    }
    final RenderTemplateResponse r = handler.answer(request);
    assertThat(r.getReasonCode()).isIn(REASONS);
    if (!"OK".equals(r.getReasonCode())) {
      assertThat(r.getMessage()).isNotBlank();
      assertThat(r.getRenderedPrompt().isEmpty()).isTrue();
      return;
    }
    assertThat(r.getRenderedPrompt().size()).isLessThanOrEqualTo(TemplateRules.MAX_RENDERED_BYTES);
    assertThat(r.getTemplateRevision()).startsWith("sha256:");
    final List<ByteString> chain = r.getStableBlockHashesList();
    assertThat(chain).allSatisfy(h -> assertThat(h.size()).isEqualTo(8));
    assertThat(r.getStablePrefixTokenCount()).isEqualTo(16 * chain.size());
    if (chain.isEmpty()) {
      assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    } else {
      assertThat(r.getStablePrefixHash()).isEqualTo(chain.get(chain.size() - 1));
    }
  }
}
