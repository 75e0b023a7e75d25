package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every render rule of {@link TemplateRenderer}. */
class TemplateRendererTest {
  static PromptTemplate template(final String body, final Slot... slots) throws Exception {
    return PromptTemplate.compile(
        "team-a", "support", new PromptTemplateSpec("", body, List.of(slots)));
  }

  static final Slot SYSTEM = new Slot("system", SlotType.STABLE, true);
  static final Slot QUESTION = new Slot("question", SlotType.MUTABLE, true);

  static RenderResult.Rendered ok(final RenderResult r) {
    assertThat(r).isInstanceOf(RenderResult.Rendered.class);
    return (RenderResult.Rendered) r;
  }

  static RenderResult.Failure failure(final RenderResult r) {
    assertThat(r).isInstanceOf(RenderResult.Failure.class);
    return (RenderResult.Failure) r;
  }

  static String text(final RenderResult.Rendered r) {
    return new String(r.utf8(), StandardCharsets.UTF_8);
  }

  @Test
  void replacesEachPlaceholderAndReportsWhereTheStablePrefixEnds() throws Exception {
    final PromptTemplate t = template("{{.system}}\n\nUser: {{ .question }}!", SYSTEM, QUESTION);
    final var r = ok(TemplateRenderer.render(t, Map.of("system", "Be brief.", "question", "Why?")));
    assertThat(text(r)).isEqualTo("Be brief.\n\nUser: Why?!");
    assertThat(r.stablePrefixChars()).isEqualTo("Be brief.\n\nUser: ".length());
    assertThat(r.stablePrefixBytes()).isEqualTo(r.stablePrefixChars());
    assertThat(r.chars()).isEqualTo(text(r).length());
  }

  @Test
  void withoutAMutablePlaceholderTheWholePromptIsStable() throws Exception {
    final var r =
        ok(TemplateRenderer.render(template("A {{.system}} B", SYSTEM), Map.of("system", "s")));
    assertThat(r.stablePrefixBytes()).isEqualTo(r.utf8().length).isEqualTo(5);
    assertThat(r.stablePrefixChars()).isEqualTo(5);
  }

  @Test
  void offsetsCountUtf8BytesAndUtf16CharsApart() throws Exception {
    final PromptTemplate t = template("é{{.system}}→{{.question}}", SYSTEM, QUESTION);
    final var r = ok(TemplateRenderer.render(t, Map.of("system", "😀", "question", "ü")));
    assertThat(text(r)).isEqualTo("é😀→ü");
    assertThat(r.utf8()).isEqualTo("é😀→ü".getBytes(StandardCharsets.UTF_8));
    assertThat(r.stablePrefixBytes()).isEqualTo("é😀→".getBytes(StandardCharsets.UTF_8).length);
    assertThat(r.stablePrefixChars()).isEqualTo("é😀→".length());
  }

  @Test
  void valuesAreDataNeverTemplates() throws Exception {
    final PromptTemplate t = template("{{.system}}|{{.question}}", SYSTEM, QUESTION);
    final var r =
        ok(
            TemplateRenderer.render(
                t, Map.of("system", "{{.question}}", "question", "{{ .system }}")));
    assertThat(text(r)).isEqualTo("{{.question}}|{{ .system }}");
  }

  @Test
  void aSlotUsedTwiceRendersTwice() throws Exception {
    final PromptTemplate t = template("{{.system}}-{{.system}}", SYSTEM);
    assertThat(text(ok(TemplateRenderer.render(t, Map.of("system", "ab"))))).isEqualTo("ab-ab");
  }

  @Test
  void anOptionalSlotWithoutAValueRendersAsNothing() throws Exception {
    final Slot ctx = new Slot("context", SlotType.STABLE, false);
    final PromptTemplate t =
        template("{{.system}}[{{.context}}]{{.question}}", SYSTEM, ctx, QUESTION);
    final var r = ok(TemplateRenderer.render(t, Map.of("system", "s", "question", "q")));
    assertThat(text(r)).isEqualTo("s[]q");
    assertThat(r.stablePrefixChars()).isEqualTo(3);
  }

  @Test
  void aMissingRequiredSlotFailsNamingTheSlotAndTemplate() throws Exception {
    final PromptTemplate t = template("{{.system}}{{.question}}", SYSTEM, QUESTION);
    final var f = failure(TemplateRenderer.render(t, Map.of("system", "s")));
    assertThat(f.slot()).isEqualTo("question");
    assertThat(f.message())
        .contains("\"question\"")
        .contains("team-a/support")
        .contains("required");
    // empty counts as missing
    assertThat(failure(TemplateRenderer.render(t, Map.of("system", "", "question", "q"))).slot())
        .isEqualTo("system");
    // no variables at all: the first required slot in declaration order
    assertThat(failure(TemplateRenderer.render(t, null)).slot()).isEqualTo("system");
  }

  @Test
  void aVariableNamingNoSlotFailsNamingTheVariable() throws Exception {
    final PromptTemplate t = template("{{.system}}{{.question}}", SYSTEM, QUESTION);
    final Map<String, String> vars = new HashMap<>(Map.of("system", "s", "question", "q"));
    vars.put("zeta", "1");
    vars.put("questoin", "typo");
    final var f = failure(TemplateRenderer.render(t, vars));
    assertThat(f.slot()).isEqualTo("questoin");
    assertThat(f.message()).contains("\"questoin\" names no slot of template team-a/support");
  }

  @Test
  void anUnknownVariableOfAHugeNameIsQuotedShortened() throws Exception {
    final PromptTemplate t = template("{{.system}}{{.question}}", SYSTEM, QUESTION);
    final String huge = "v".repeat(1 << 20);
    final var f =
        failure(TemplateRenderer.render(t, Map.of("system", "s", "question", "q", huge, "1")));
    // the message quotes at most an excerpt of the name, not the megabyte the caller sent
    assertThat(f.message().length()).isLessThan(400);
    assertThat(f.message()).contains("\"" + "v".repeat(64) + "…\"");
    assertThat(f.slot().length()).isLessThanOrEqualTo(65);
  }

  @Test
  void aValueOverTheBoundFailsNamingTheSlot() throws Exception {
    final PromptTemplate t = template("{{.system}}{{.question}}", SYSTEM, QUESTION);
    final String big = "x".repeat(TemplateRules.MAX_VARIABLE_CHARS + 1);
    final var f = failure(TemplateRenderer.render(t, Map.of("system", "s", "question", big)));
    assertThat(f.slot()).isEqualTo("question");
    assertThat(f.message()).contains("262145").contains("262144");
    ok(TemplateRenderer.render(t, Map.of("system", "s", "question", big.substring(1))));
  }

  @Test
  void aPromptOverTheRenderedBoundFails() throws Exception {
    final PromptTemplate t =
        template("{{.system}}{{.system}}{{.system}}{{.system}}{{.question}}", SYSTEM, QUESTION);
    final String quarter = "y".repeat(TemplateRules.MAX_RENDERED_BYTES / 4);
    final var f = failure(TemplateRenderer.render(t, Map.of("system", quarter, "question", "q")));
    assertThat(f.slot()).isEmpty();
    assertThat(f.message()).contains("1048577 bytes").contains("1048576");
    final var r =
        ok(TemplateRenderer.render(t, Map.of("system", quarter.substring(1), "question", "qqqq")));
    assertThat(r.utf8()).hasSize(TemplateRules.MAX_RENDERED_BYTES);
  }

  @Test
  void anUnpairedSurrogateIsEncodedAsStringGetBytesDoes() throws Exception {
    final PromptTemplate t = template("{{.system}}", SYSTEM);
    final String odd = "a\uD800b\uDC00c";
    final var r = ok(TemplateRenderer.render(t, Map.of("system", odd)));
    assertThat(r.utf8()).isEqualTo(odd.getBytes(StandardCharsets.UTF_8));
    assertThat(new String(r.utf8(), StandardCharsets.UTF_8)).hasSize(r.chars());
  }
}
