package io.inferencecache.service.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rendering bounds of {@link ChatTemplate}; the regression tests of the chat-template fuzz
 * findings.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatTemplateTest {
  static final String TEMPLATE =
      "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
          + "{% if add_generation_prompt %}<|assistant|>{% endif %}";

  private static ChatTemplate template() throws ChatTemplateException {
    return ChatTemplate.of(TEMPLATE, Map.of("bos_token", "<s>"));
  }

  @Test
  void rendersOneUserTurnWithTheGenerationPrompt() throws Exception {
    assertThat(template().render("hello world")).isEqualTo("<s><|user|> hello world <|assistant|>");
  }

  @Test
  void jinjaSyntaxInThePromptIsDataNeverEvaluated() throws Exception {
    final String prompt =
        "{{ 7*7 }} {% for a in range(1000) %}{% for b in range(1000) %}x{% endfor %}{% endfor %}"
            + " {{ raise_exception('boom') }} {# c #}";
    assertThat(template().render(prompt)).isEqualTo("<s><|user|> " + prompt + " <|assistant|>");
  }

  @Test
  void unboundedOutputIsAChatTemplateExceptionAtTheOutputLimit() {
    final String loops =
        "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}"
            + "xxxxxxxxxx{% endfor %}{% endfor %}{% endfor %}";
    final long t0 = System.nanoTime();
    assertThatThrownBy(() -> ChatTemplate.of(loops, Map.of()))
        .isInstanceOf(ChatTemplateException.class);
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(20));
  }

  @Test
  void stringDoublingIsAChatTemplateExceptionNotAnOutOfMemoryError() {
    assertThatThrownBy(
            () ->
                ChatTemplate.of(
                    "{% set x = 'ab' %}{% for i in range(64) %}{% set x = x ~ x %}{% endfor %}{{ x }}",
                    Map.of()))
        .isInstanceOf(ChatTemplateException.class);
  }

  @Test
  void emptyNestedLoopsStopAtTheRenderBudget() {
    final String loops =
        "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}"
            + "{% endfor %}{% endfor %}{% endfor %}";
    final long t0 = System.nanoTime();
    assertThatThrownBy(() -> ChatTemplate.of(loops, Map.of()))
        .isInstanceOf(ChatTemplateException.class);
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(20));
  }

  @Test
  void deeplyNestedTemplateIsAChatTemplateExceptionNotAStackOverflowError() throws Exception {
    for (final String t :
        new String[] {
          "{{ " + "(".repeat(2_000) + "1" + ")".repeat(2_000) + " }}",
          "{{ " + "[".repeat(2_000) + "1" + "]".repeat(2_000) + " }}",
          "{% if 1 %}".repeat(2_000) + "{% endif %}".repeat(2_000)
        }) {
      // A 256 KiB stack usually overflows on each of them (the default 1 MiB on most).
      final Throwable[] thrown = new Throwable[1];
      final Thread small =
          new Thread(
              null,
              () -> {
                try {
                  ChatTemplate.of(t, Map.of());
                } catch (Throwable e) {
                  thrown[0] = e;
                }
              },
              "small-stack",
              256 * 1024);
      small.start();
      small.join();
      // Whether the parser overflows depends on JIT state (compiled frames are smaller): either
      // the template renders, or the overflow is a ChatTemplateException; never an Error.
      if (thrown[0] != null) {
        assertThat(thrown[0]).isInstanceOf(ChatTemplateException.class);
      }
    }
  }

  @Test
  void raiseExceptionIsAChatTemplateException() {
    assertThatThrownBy(() -> ChatTemplate.of("{{ raise_exception('no system role') }}", Map.of()))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessageContaining("no system role");
  }

  @Test
  void includeAndImportCannotReadFiles() throws Exception {
    for (final String t :
        new String[] {
          "{% include '/etc/hostname' %}",
          "{% import '/etc/hostname' as x %}",
          "{% extends '/etc/hostname' %}"
        }) {
      try {
        assertThat(ChatTemplate.of(t, Map.of()).render("p")).doesNotContain("localhost");
      } catch (ChatTemplateException expected) {
        // refused: no resource locator
      }
    }
  }
}
