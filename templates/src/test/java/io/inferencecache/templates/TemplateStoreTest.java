package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link TemplateStore}: replace whole, find by ref, sketches kept across replacements. */
class TemplateStoreTest {
  static PromptTemplate t(final String ns, final String name, final String body, final Slot... s)
      throws Exception {
    return PromptTemplate.compile(ns, name, new PromptTemplateSpec("", body, List.of(s)));
  }

  static final Slot SYSTEM = new Slot("system", SlotType.STABLE, true);
  static final Slot QUESTION = new Slot("question", SlotType.MUTABLE, true);

  @Test
  void startsEmptyAndFindsByNamespaceSlashName() throws Exception {
    final TemplateStore store = new TemplateStore();
    assertThat(store.isEmpty()).isTrue();
    assertThat(store.find("team-a/support")).isNull();
    final PromptTemplate a = t("team-a", "support", "{{.system}}", SYSTEM);
    final PromptTemplate b = t("team-b", "support", "{{.system}}!", SYSTEM);
    store.replace(List.of(a, b));
    assertThat(store.isEmpty()).isFalse();
    assertThat(store.find("team-a/support").template()).isSameAs(a);
    assertThat(store.find("team-b/support").template()).isSameAs(b);
    assertThat(store.find("team-c/support")).isNull();
    assertThat(store.templates()).containsExactly(a, b);
    store.replace(List.of());
    assertThat(store.isEmpty()).isTrue();
  }

  @Test
  void aDuplicateRefIsRefusedAndTheOldSetKept() throws Exception {
    final TemplateStore store = new TemplateStore();
    final PromptTemplate a = t("team-a", "support", "{{.system}}", SYSTEM);
    store.replace(List.of(a));
    assertThatThrownBy(() -> store.replace(List.of(a, t("team-a", "support", "x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("team-a/support");
    assertThat(store.templates()).containsExactly(a);
  }

  @Test
  void countsDistinctStableValuesAndKeepsTheCountAcrossAReplacement() throws Exception {
    final TemplateStore store = new TemplateStore();
    store.replace(List.of(t("team-a", "support", "{{.system}}{{.question}}", SYSTEM, QUESTION)));
    final TemplateStore.Entry e = store.find("team-a/support");
    assertThat(e.stableSketch("question")).isNull();
    for (int i = 0; i < 100; i++) {
      e.recordStableValues(Map.of("system", "s" + (i % 10), "question", "q" + i));
    }
    assertThat(store.stableSlotEstimates())
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.namespace()).isEqualTo("team-a");
              assertThat(x.template()).isEqualTo("support");
              assertThat(x.slot()).isEqualTo("system");
              assertThat(x.distinctValues()).isBetween(9.5, 10.5);
            });
    // same template pushed again (as the controller does every interval): the count stays
    store.replace(List.of(t("team-a", "support", "{{.system}}{{.question}}", SYSTEM, QUESTION)));
    assertThat(store.find("team-a/support").stableSketch("system"))
        .isSameAs(e.stableSketch("system"));
    // the slot turned Mutable: no sketch any more
    store.replace(
        List.of(
            t(
                "team-a",
                "support",
                "{{.system}}{{.question}}",
                new Slot("system", SlotType.MUTABLE, true),
                QUESTION)));
    assertThat(store.stableSlotEstimates()).isEmpty();
  }
}
