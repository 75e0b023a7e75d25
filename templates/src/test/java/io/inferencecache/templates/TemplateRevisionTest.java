package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TemplateRevision}: the canonical form and its digest. */
class TemplateRevisionTest {
  static final PromptTemplateSpec SPEC =
      new PromptTemplateSpec(
          "meta-llama/Llama-3.1-8B-Instruct",
          "{{.system}}\n\nUser: {{.question}}",
          List.of(
              new Slot("system", SlotType.STABLE, true),
              new Slot("question", SlotType.MUTABLE, true, "the \"user\" turn")));

  @Test
  void theCanonicalJsonSortsKeysAndEscapesAsJcs() {
    assertThat(TemplateRevision.canonicalJson(SPEC))
        .isEqualTo(
            "{\"body\":\"{{.system}}\\n\\nUser: {{.question}}\","
                + "\"modelId\":\"meta-llama/Llama-3.1-8B-Instruct\",\"slots\":["
                + "{\"name\":\"system\",\"required\":true,\"type\":\"Stable\"},"
                + "{\"description\":\"the \\\"user\\\" turn\",\"name\":\"question\","
                + "\"required\":true,\"type\":\"Mutable\"}]}");
    assertThat(
            TemplateRevision.canonicalJson(new PromptTemplateSpec("", "a\u0001\t\\é", List.of())))
        .isEqualTo("{\"body\":\"a\\u0001\\t\\\\é\",\"slots\":[]}");
  }

  @Test
  void theRevisionIsSha256PrefixedSixteenHexDigitsPinnedByAGoldenValue() {
    final String r = TemplateRevision.of(SPEC);
    assertThat(r).matches("sha256:[0-9a-f]{16}");
    // golden: sha256 of the canonical JSON above (python3 hashlib), first 8 bytes
    assertThat(r).isEqualTo(GOLDEN);
  }

  static final String GOLDEN = "sha256:9948546c14e08c3c";

  @Test
  void everySpecFieldChangesTheRevisionAndNullsEqualEmpties() {
    final String base = TemplateRevision.of(SPEC);
    assertThat(TemplateRevision.of(new PromptTemplateSpec("", SPEC.body(), SPEC.slots())))
        .isNotEqualTo(base);
    assertThat(
            TemplateRevision.of(
                new PromptTemplateSpec(SPEC.modelId(), SPEC.body() + " ", SPEC.slots())))
        .isNotEqualTo(base);
    assertThat(
            TemplateRevision.of(
                new PromptTemplateSpec(
                    SPEC.modelId(),
                    SPEC.body(),
                    List.of(
                        SPEC.slots().get(0),
                        new Slot("question", SlotType.MUTABLE, false, "the \"user\" turn")))))
        .isNotEqualTo(base);
    assertThat(TemplateRevision.of(new PromptTemplateSpec(null, "b", null)))
        .isEqualTo(TemplateRevision.of(new PromptTemplateSpec("", "b", List.of())));
    assertThat(TemplateRevision.of(SPEC)).isEqualTo(base);
  }

  @Test
  void theCompiledTemplateCarriesTheRevision() throws Exception {
    assertThat(PromptTemplate.compile("team-a", "support", SPEC).revision())
        .isEqualTo(TemplateRevision.of(SPEC));
  }
}
