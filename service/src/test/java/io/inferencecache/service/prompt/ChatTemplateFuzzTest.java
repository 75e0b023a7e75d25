package io.inferencecache.service.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Fuzzes chat-template rendering (Jinjava): an operator's template and a client's prompt text.
 * Input: the first byte picks one of the real templates below (the rest of the input is the prompt)
 * or, for any other value, a fuzzed template (the bytes up to the first NUL) and a prompt (the
 * bytes after it). Whatever the input, {@link ChatTemplate#of} and {@link ChatTemplate#render}
 * return or throw {@link ChatTemplateException} — nothing else (no {@link StackOverflowError} or
 * {@link OutOfMemoryError}); the output is at most {@link ChatTemplate#MAX_OUTPUT_CHARS}; every
 * call returns within 30 s; a real template copies the prompt verbatim (the prompt is data, never
 * evaluated as Jinja).
 *
 * <p>tokenizer.json loading (DJL's native Rust binding) is not fuzzed in process: see
 * docs/reliability.md §A.
 *
 * <p>Regression mode (CI) replays {@code ChatTemplateFuzzTestInputs/render/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class ChatTemplateFuzzTest {
  private static final long CALL_BOUND_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final Map<String, Object> VARS =
      Map.of("bos_token", "<s>", "eos_token", "</s>", "unk_token", "<unk>");

  /** Shapes of real chat templates: ChatML (Qwen), Llama 3, Mistral [INST], Gemma. */
  private static final String[] REAL = {
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
        + " + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
        + "{{ '<|im_start|>assistant\\n' }}{% endif %}",
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
        + "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'"
        + " + message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
        + "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
        + "{% if add_generation_prompt %}"
        + "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}",
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') !="
        + " (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate"
        + " user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}"
        + "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] =="
        + " 'assistant' %}{{ message['content'] + eos_token}}{% else %}"
        + "{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}"
        + "{% endfor %}",
    "{{ bos_token }}{% for message in messages %}{% set role = 'model' if message['role'] =="
        + " 'assistant' else message['role'] %}{{ '<start_of_turn>' + role + '\\n' +"
        + " message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}"
        + "{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}"
  };

  @FuzzTest(maxDuration = "2m")
  void render(final byte[] bytes) {
    if (bytes.length == 0) {
      return;
    }
    final int pick = Byte.toUnsignedInt(bytes[0]);
    final byte[] rest = Arrays.copyOfRange(bytes, 1, bytes.length);
    final String template;
    final String prompt;
    if (pick < REAL.length) {
      template = REAL[pick];
      prompt = new String(rest, StandardCharsets.UTF_8);
    } else {
      int nul = 0;
      while (nul < rest.length && rest[nul] != 0) {
        nul++;
      }
      template = new String(rest, 0, nul, StandardCharsets.UTF_8);
      prompt =
          nul < rest.length
              ? new String(rest, nul + 1, rest.length - nul - 1, StandardCharsets.UTF_8)
              : "";
    }
    long t0 = System.nanoTime();
    final ChatTemplate t;
    try {
      t = ChatTemplate.of(template, VARS);
    } catch (ChatTemplateException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      assertThat(System.nanoTime() - t0).isLessThan(CALL_BOUND_NANOS);
      return;
    }
    assertThat(System.nanoTime() - t0).isLessThan(CALL_BOUND_NANOS);
    t0 = System.nanoTime();
    final String out;
    try {
      out = t.render(prompt);
    } catch (ChatTemplateException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      assertThat(System.nanoTime() - t0).isLessThan(CALL_BOUND_NANOS);
      return;
    }
    assertThat(System.nanoTime() - t0).isLessThan(CALL_BOUND_NANOS);
    assertThat(out.length()).isLessThanOrEqualTo(ChatTemplate.MAX_OUTPUT_CHARS);
    if (pick < REAL.length) {
      // Llama 3 (1) and Gemma (3) trim the content (String.trim, as the filter does).
      assertThat(out).contains(pick % 2 == 1 ? prompt.trim() : prompt);
    }
  }
}
