package io.inferencecache.service.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The RenderTemplate handler's answers, step by step (docs/behaviour.md#render-template). */
class RenderTemplatesTest {
  static final byte[] KEY = "0123456789abcdef-secret".getBytes(StandardCharsets.UTF_8);

  final TemplateStore store = new TemplateStore();
  final List<String> recorded = new ArrayList<>();
  final RenderTemplates handler =
      new RenderTemplates(store, PromptTokenizer.NONE, 16, TenantKey.of(KEY), recorded::add);

  void hold() throws Exception {
    store.replace(
        List.of(
            PromptTemplate.compile(
                "team-a",
                "support",
                new PromptTemplateSpec(
                    "",
                    "{{.system}} | {{.question}}",
                    List.of(
                        new Slot("system", SlotType.STABLE, true),
                        new Slot("question", SlotType.MUTABLE, true))))));
  }

  static RenderTemplateRequest.Builder req() {
    return RenderTemplateRequest.newBuilder()
        .setTemplateRef("team-a/support")
        .setTenantId("tenant-1")
        .putVariables("system", "S")
        .putVariables("question", "Q");
  }

  @Test
  void aServerWithNoTemplatesKeepsUpstreamsAnswer() {
    final RenderTemplateResponse r = handler.answer(req().build());
    assertThat(r).isEqualTo(RenderTemplateResponse.newBuilder().setReasonCode("OK").build());
    assertThat(recorded).containsExactly("OK");
  }

  @Test
  void rendersAndAnswersTheRevisionAndTheKeyedTenantNamespace() throws Exception {
    hold();
    final RenderTemplateResponse r = handler.answer(req().build());
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getRenderedPrompt().toStringUtf8()).isEqualTo("S | Q");
    assertThat(r.getTemplateRevision())
        .isEqualTo(store.find("team-a/support").template().revision())
        .startsWith("sha256:");
    final Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
    assertThat(HexFormat.of().formatHex(r.getTenantNamespace().toByteArray()))
        .isEqualTo(
            HexFormat.of().formatHex(mac.doFinal("tenant-1".getBytes(StandardCharsets.UTF_8))))
        .hasSize(64);
    // no model: no hash, no message
    assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    assertThat(r.getMessage()).isEmpty();
    // the Stable slot's value was counted
    assertThat(store.stableSlotEstimates())
        .singleElement()
        .satisfies(e -> assertThat(e.distinctValues()).isBetween(0.9, 1.1));
  }

  @Test
  void noKeyOrNoTenantGivesAnEmptyNamespace() throws Exception {
    hold();
    assertThat(handler.answer(req().clearTenantId().build()).getTenantNamespace().isEmpty())
        .isTrue();
    final RenderTemplates keyless =
        new RenderTemplates(store, PromptTokenizer.NONE, 16, TenantKey.NONE, RenderMetrics.NOOP);
    assertThat(keyless.answer(req().build()).getTenantNamespace().isEmpty()).isTrue();
  }

  @Test
  void anUnknownRefIsTemplateNotFoundNamingIt() throws Exception {
    hold();
    final RenderTemplateResponse r = handler.answer(req().setTemplateRef("team-a/other").build());
    assertThat(r.getReasonCode()).isEqualTo("TEMPLATE_NOT_FOUND");
    assertThat(r.getMessage()).contains("\"team-a/other\"");
    assertThat(r.getRenderedPrompt().isEmpty()).isTrue();
    assertThat(handler.answer(req().clearTemplateRef().build()).getMessage())
        .contains("template_ref is empty");
    assertThat(recorded).containsExactly("TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_FOUND");
  }

  @Test
  void aHugeTemplateRefIsQuotedShortenedNotEchoedWhole() throws Exception {
    hold();
    final String huge = "team-a/" + "x".repeat(1 << 20);
    final RenderTemplateResponse r = handler.answer(req().setTemplateRef(huge).build());
    assertThat(r.getReasonCode()).isEqualTo("TEMPLATE_NOT_FOUND");
    assertThat(r.getMessage().length()).isLessThan(1000);
    assertThat(r.getMessage()).startsWith("template \"team-a/xxx").contains("…\"");
  }

  @Test
  void aMissingRequiredSlotIsRenderErrorNamingTheSlot() throws Exception {
    hold();
    final RenderTemplateResponse r = handler.answer(req().removeVariables("question").build());
    assertThat(r.getReasonCode()).isEqualTo("RENDER_ERROR");
    assertThat(r.getMessage())
        .isEqualTo("slot \"question\" of template team-a/support is required and has no value");
    assertThat(r.getRenderedPrompt().isEmpty()).isTrue();
    assertThat(r.getTemplateRevision()).isEmpty();
    assertThat(recorded).containsExactly("RENDER_ERROR");
    // a failed render counts no value
    assertThat(store.stableSlotEstimates().get(0).distinctValues()).isZero();
  }

  @Test
  void anUndeclaredVariableIsRenderErrorNamingIt() throws Exception {
    hold();
    final RenderTemplateResponse r = handler.answer(req().putVariables("sytem", "x").build());
    assertThat(r.getReasonCode()).isEqualTo("RENDER_ERROR");
    assertThat(r.getMessage()).contains("\"sytem\"").contains("team-a/support");
  }

  @Test
  void aTokenizerThatThrowsLeavesTheHashEmptyAndTheAnswerOk() throws Exception {
    hold();
    final PromptTokenizer broken =
        new PromptTokenizer() {
          @Override
          public boolean supports(final String modelId) {
            return true;
          }

          @Override
          public int[] encodeUserTurn(final String modelId, final String text) {
            throw new IllegalStateException("boom");
          }
        };
    final RenderTemplates h =
        new RenderTemplates(store, broken, 16, TenantKey.NONE, RenderMetrics.NOOP);
    final RenderTemplateResponse r = h.answer(req().setModelId("m").build());
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    assertThat(r.getMessage())
        .isEqualTo("tokenizing for model \"m\" failed: stable_prefix_hash left empty");
  }
}
