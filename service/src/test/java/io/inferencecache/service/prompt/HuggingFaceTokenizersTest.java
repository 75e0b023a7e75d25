package io.inferencecache.service.prompt;

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
public class HuggingFaceTokenizersTest {

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
  public static void writeModel(final Path dir, final String name, final boolean template)
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

  /** The tiny tokenizer with {@code post_processor} replaced. */
  static String withPostProcessor(final String postProcessor) {
    return TOKENIZER_JSON.replace(
        "\"post_processor\": null", "\"post_processor\": " + postProcessor);
  }

  /** Loads but makes the native library panic (SIGABRT of the whole JVM) on the first encode. */
  static final String MISSING_SPECIAL_TOKEN =
      withPostProcessor(
          "{\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\":"
              + " \"[CLS]\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\":"
              + " 0}}], \"pair\": [], \"special_tokens\": {}}");

  /** Loads but panics (index out of bounds) on the first encode: a single template with B. */
  static final String SEQUENCE_B_IN_SINGLE =
      withPostProcessor(
          "{\"type\": \"Sequence\", \"processors\": [{\"type\": \"TemplateProcessing\","
              + " \"single\": [{\"Sequence\": {\"id\": \"B\", \"type_id\": 7}}], \"pair\":"
              + " [], \"special_tokens\": {}}]}");

  /** {@link #SEQUENCE_B_IN_SINGLE} with the type misspelled: still a template to the library. */
  static final String MISSPELLED_TYPE =
      SEQUENCE_B_IN_SINGLE.replace("\"TemplateProcessing\"", "\"Tedecoeerrocessing\"");

  @Test
  void aTokenizerJsonTheNativeLibraryWouldAbortTheJvmOnIsSkipped(@TempDir final Path dir)
      throws Exception {
    writeModel(dir, "good", false);
    for (final String[] m :
        new String[][] {
          {"missing-special", MISSING_SPECIAL_TOKEN},
          {"b-in-single", SEQUENCE_B_IN_SINGLE},
          {"misspelled-type", MISSPELLED_TYPE}
        }) {
      Files.createDirectories(dir.resolve(m[0]));
      Files.writeString(dir.resolve(m[0]).resolve("tokenizer.json"), m[1]);
    }
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.models()).containsExactly("good");
      assertThat(t.encodeUserTurn("good", "hello the cache")).containsExactly(6, 8, 9);
    }
  }

  @Test
  void aValidTemplateProcessingPasses(@TempDir final Path dir) throws Exception {
    final Path m = Files.createDirectories(dir.resolve("cls"));
    Files.writeString(
        m.resolve("tokenizer.json"),
        withPostProcessor(
            "{\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\":"
                + " \"<s>\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\":"
                + " 0}}], \"pair\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
                + " {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}], \"special_tokens\":"
                + " {\"<s>\": {\"id\": \"<s>\", \"ids\": [1], \"tokens\": [\"<s>\"]}}}"));
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.encodeUserTurn("cls", "hello world")).containsExactly(1, 6, 7);
    }
  }

  @Test
  void aChatTemplateThatFailsItsSampleRenderSkipsTheModel(@TempDir final Path dir)
      throws Exception {
    final Path m = Files.createDirectories(dir.resolve("deep"));
    Files.writeString(m.resolve("tokenizer.json"), TOKENIZER_JSON);
    Files.writeString(
        m.resolve("tokenizer_config.json"),
        "{\"chat_template\": \"{{ raise_exception('unsupported') }}\"}");
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(dir)) {
      assertThat(t.models()).isEmpty();
    }
  }

  @Test
  void aMissingDirectoryIsAnError(@TempDir final Path dir) {
    assertThatThrownBy(() -> HuggingFaceTokenizers.load(dir.resolve("nope")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("--tokenizer-models-dir");
  }
}
