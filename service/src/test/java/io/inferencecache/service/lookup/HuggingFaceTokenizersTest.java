package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real Hugging Face tokenizer (a tiny WordLevel tokenizer.json written by the test). */
@Timeout(60)
class HuggingFaceTokenizersTest {

  static final String TOKENIZER_JSON =
      """
      {
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [
          {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
           "normalized": false, "special": true}
        ],
        "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null,
        "decoder": null,
        "model": {
          "type": "WordLevel",
          "vocab": {"<unk>": 0, "<s>": 1, "<|": 2, "|>": 3, "user": 4, "assistant": 5,
                    "hello": 6, "world": 7, "the": 8, "cache": 9},
          "unk_token": "<unk>"
        }
      }
      """;

  static final String TEMPLATE_CONFIG =
      """
      {
        "bos_token": "<s>",
        "chat_template": "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
      }
      """;

  /** Writes model {@code name} with or without a chat template. */
  static void writeModel(final Path dir, final String name, final boolean template)
      throws IOException {
    final Path m = Files.createDirectories(dir.resolve(name));
    Files.writeString(m.resolve("tokenizer.json"), TOKENIZER_JSON);
    if (template) {
      Files.writeString(m.resolve("tokenizer_config.json"), TEMPLATE_CONFIG);
    }
  }

  @Test
  void appliesTheChatTemplateAsASingleUserTurnWithGenerationPrompt(@TempDir final Path dir)
      throws Exception {
    writeModel(dir, "chat-model", true);
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.supports("chat-model")).isTrue();
      assertThat(t.render("chat-model", "hello world"))
          .isEqualTo("<s><|user|> hello world <|assistant|>");
      assertThat(t.encodeUserTurn("chat-model", "hello world"))
          .containsExactly(1, 2, 4, 3, 6, 7, 2, 5, 3);
    }
  }

  @Test
  void tokenizesThePlainTextWhenTheModelHasNoTemplate(@TempDir final Path dir) throws Exception {
    writeModel(dir, "plain", false);
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.encodeUserTurn("plain", "hello the cache")).containsExactly(6, 8, 9);
      assertThat(t.supports("other")).isFalse();
      assertThatThrownBy(() -> t.encodeUserTurn("other", "x"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("other");
    }
  }

  @Test
  void skipsAModelWhoseTokenizerCannotBeLoaded(@TempDir final Path dir) throws Exception {
    writeModel(dir, "good", false);
    Files.createDirectories(dir.resolve("broken"));
    Files.writeString(dir.resolve("broken/tokenizer.json"), "{not json");
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.models()).containsExactly("good");
    }
  }

  @Test
  void aMissingDirectoryIsAnError(@TempDir final Path dir) {
    assertThatThrownBy(() -> HuggingFaceTokenizers.load(dir.resolve("nope")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("--tokenizer-models-dir");
  }
}
