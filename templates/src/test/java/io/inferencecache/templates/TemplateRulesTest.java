package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every validation rule of {@link TemplateRules}, each by the field it names. */
class TemplateRulesTest {
  static final Slot SYSTEM = new Slot("system", SlotType.STABLE, true);
  static final Slot QUESTION = new Slot("question", SlotType.MUTABLE, true);

  static PromptTemplateSpec spec(final String body, final Slot... slots) {
    return new PromptTemplateSpec("", body, List.of(slots));
  }

  static List<String> fields(final PromptTemplateSpec spec) {
    return TemplateRules.validate(spec).stream().map(TemplateViolation::field).toList();
  }

  @Test
  void aStableThenMutableTemplateIsValid() {
    assertThat(
            TemplateRules.validate(spec("{{.system}}\n\nUser: {{ .question }}", SYSTEM, QUESTION)))
        .isEmpty();
  }

  @Test
  void anEmptyBodyNamesTheBody() {
    assertThat(fields(spec("", SYSTEM))).containsExactly("spec.body");
  }

  @Test
  void aBodyOverTheBoundNamesTheBody() {
    final var v = TemplateRules.validate(spec("x".repeat(TemplateRules.MAX_BODY_CHARS + 1)));
    assertThat(v).singleElement().extracting(TemplateViolation::field).isEqualTo("spec.body");
    assertThat(v.get(0).message()).contains("65537").contains("65536");
    assertThat(TemplateRules.validate(spec("x".repeat(TemplateRules.MAX_BODY_CHARS)))).isEmpty();
  }

  @Test
  void tooManySlotsNamesTheSlotList() {
    final List<Slot> slots = new ArrayList<>();
    for (int i = 0; i <= TemplateRules.MAX_SLOTS; i++) {
      slots.add(new Slot("s" + i, SlotType.STABLE, false));
    }
    assertThat(fields(new PromptTemplateSpec("", "x", slots))).containsExactly("spec.slots");
  }

  @Test
  void aMalformedSlotNameNamesTheSlotsNameField() {
    assertThat(fields(spec("x", SYSTEM, new Slot("9lives", SlotType.STABLE, false))))
        .containsExactly("spec.slots[1].name");
    assertThat(fields(spec("x", new Slot("a-b", SlotType.STABLE, false))))
        .containsExactly("spec.slots[0].name");
    assertThat(fields(spec("x", new Slot("", SlotType.STABLE, false))))
        .containsExactly("spec.slots[0].name");
    assertThat(fields(spec("x", new Slot("a".repeat(64), SlotType.STABLE, false))))
        .containsExactly("spec.slots[0].name");
    assertThat(fields(spec("{{._a9}}", new Slot("_a9", SlotType.STABLE, false)))).isEmpty();
  }

  @Test
  void aDuplicateSlotNameNamesTheLaterSlot() {
    final var v = TemplateRules.validate(spec("{{.system}}", SYSTEM, QUESTION, SYSTEM));
    assertThat(v)
        .singleElement()
        .extracting(TemplateViolation::field)
        .isEqualTo("spec.slots[2].name");
    assertThat(v.get(0).message()).contains("spec.slots[0]");
  }

  @Test
  void aMissingTypeNamesTheTypeField() {
    final var v = TemplateRules.validate(spec("{{.system}}", SYSTEM, new Slot("q", null, false)));
    assertThat(v)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.field()).isEqualTo("spec.slots[1].type");
              assertThat(x.message()).isEqualTo("must be Stable or Mutable");
            });
  }

  @Test
  void aLongDescriptionNamesTheDescriptionField() {
    final Slot s = new Slot("system", SlotType.STABLE, true, "d".repeat(1025));
    assertThat(fields(spec("{{.system}}", s))).containsExactly("spec.slots[0].description");
  }

  @Test
  void aLongOrControlModelIdNamesTheModelId() {
    assertThat(fields(new PromptTemplateSpec("m".repeat(257), "{{.system}}", List.of(SYSTEM))))
        .containsExactly("spec.modelId");
    assertThat(fields(new PromptTemplateSpec("a\nb", "{{.system}}", List.of(SYSTEM))))
        .containsExactly("spec.modelId");
  }

  @Test
  void aPlaceholderNamingNoSlotNamesTheBodyWithTheOffset() {
    final var v = TemplateRules.validate(spec("ab{{.nope}}", SYSTEM));
    assertThat(v).extracting(TemplateViolation::field).contains("spec.body");
    assertThat(v.get(0).message()).contains("{{.nope}}").contains("offset 2");
  }

  @Test
  void everyMalformedPlaceholderIsASyntaxErrorAtItsOffset() {
    for (String body :
        List.of(
            "x {{system}}",
            "x {{ system }}",
            "x {{.system | upper}}",
            "x {{.system",
            "x {{. system}}",
            "x {{.system}",
            "x {{}}",
            "x {{.sys tem}}",
            "x {{{.system}}}",
            "x {{.a.b}}",
            "x {{- .system}}",
            "x {{.9}}",
            "x {{\n.system}}")) {
      final var v = TemplateRules.validate(spec(body, new Slot("system", SlotType.STABLE, false)));
      assertThat(v)
          .as(body)
          .singleElement()
          .satisfies(
              x -> {
                assertThat(x.field()).isEqualTo("spec.body");
                assertThat(x.message())
                    .contains("offset 2")
                    .contains("opens no {{.slot}} placeholder");
              });
    }
  }

  @Test
  void blanksInsideTheBracesAreAllowedAndALoneClosingPairIsText() {
    assertThat(TemplateRules.validate(spec("{{ .system}} }} {{\t.system \t}}", SYSTEM))).isEmpty();
  }

  @Test
  void aStablePlaceholderAfterTheFirstMutableOneNamesTheBody() {
    final Slot context = new Slot("context", SlotType.STABLE, false);
    final var v =
        TemplateRules.validate(
            spec("{{.system}} {{.question}} {{.context}}", SYSTEM, QUESTION, context));
    assertThat(v)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.field()).isEqualTo("spec.body");
              assertThat(x.message())
                  .contains("Stable slot \"context\" at offset 26")
                  .contains("Mutable slot \"question\" at offset 12");
            });
    // a Stable slot used both before and after the first Mutable one is refused too
    assertThat(fields(spec("{{.system}}{{.question}}{{.system}}", SYSTEM, QUESTION)))
        .containsExactly("spec.body");
    // Mutable after Mutable is fine
    final Slot more = new Slot("more", SlotType.MUTABLE, false);
    assertThat(
            fields(spec("{{.system}}{{.question}}{{.more}}{{.question}}", SYSTEM, QUESTION, more)))
        .isEmpty();
  }

  @Test
  void aRequiredSlotTheBodyNeverNamesNamesItsRequiredField() {
    final var v = TemplateRules.validate(spec("{{.system}}", SYSTEM, QUESTION));
    assertThat(v)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.field()).isEqualTo("spec.slots[1].required");
              assertThat(x.message()).contains("\"question\"").contains("{{.question}}");
            });
    // an optional one the body never names is allowed
    assertThat(fields(spec("{{.system}}", SYSTEM, new Slot("extra", SlotType.MUTABLE, false))))
        .isEmpty();
  }

  @Test
  void theFieldPrefixIsTheCallers() {
    assertThat(TemplateRules.validate(spec("", SYSTEM), "templates[3]"))
        .extracting(TemplateViolation::field)
        .containsExactly("templates[3].body");
  }

  @Test
  void objectNamesAreKubernetesNames() {
    final List<TemplateViolation> v = new ArrayList<>();
    TemplateRules.checkObjectName("team-a", "n", v);
    TemplateRules.checkObjectName("a.b-c9", "n", v);
    assertThat(v).isEmpty();
    for (String bad : List.of("", "Team", "a/b", "-a", "a-", "a_b", "x".repeat(254))) {
      TemplateRules.checkObjectName(bad, "templates[0].name", v);
    }
    assertThat(v).hasSize(7).allSatisfy(x -> assertThat(x.field()).isEqualTo("templates[0].name"));
  }

  @Test
  void checkThrowsWithTheFirstFieldInTheMessage() {
    assertThatThrownBy(() -> TemplateRules.check(spec("{{.system}}", SYSTEM, QUESTION)))
        .isInstanceOf(InvalidTemplateException.class)
        .hasMessageStartingWith("spec.slots[1].required: ");
  }

  @Test
  void compileNamesBadNamesAndSpecFields() {
    assertThatThrownBy(() -> PromptTemplate.compile("Bad", "ok", spec("", SYSTEM)))
        .isInstanceOfSatisfying(
            InvalidTemplateException.class,
            e ->
                assertThat(e.violations())
                    .extracting(TemplateViolation::field)
                    .containsExactly("metadata.namespace", "spec.body"));
  }
}
