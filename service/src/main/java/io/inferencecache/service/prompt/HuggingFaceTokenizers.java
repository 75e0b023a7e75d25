package io.inferencecache.service.prompt;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tokenizers loaded eagerly from {@code <dir>/<model_id>/tokenizer.json} (Hugging Face format,
 * through DJL's binding of the Rust tokenizers library). When the model directory also has a {@code
 * tokenizer_config.json} with a {@code chat_template}, the prompt is rendered as a single {@code
 * user} message with the generation prompt (Jinja, through Jinjava, bounded and with the prompt as
 * data only: {@link ChatTemplate}) and the rendered text is tokenized without adding special tokens
 * again — what {@code apply_chat_template(tokenize=True)} does. Without a template the text is
 * tokenized as is, with the tokenizer's special tokens.
 *
 * <p>Thread-safe: the native tokenizer is safe for concurrent encodes; templates are rendered with
 * a fresh context per call.
 */
public final class HuggingFaceTokenizers implements PromptTokenizer, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HuggingFaceTokenizers.class);

  /** A loaded model: its tokenizer and its chat template ({@code null}: none). */
  private record Model(HuggingFaceTokenizer tokenizer, ChatTemplate chatTemplate) {}

  private final Map<String, Model> models = new ConcurrentHashMap<>();

  private HuggingFaceTokenizers() {}

  /**
   * Loads every {@code <dir>/<model>/tokenizer.json}. A model that fails to load — including a chat
   * template that fails its sample render ({@link ChatTemplate#of}) — is logged and skipped (its
   * prompts fail open); a missing directory is an error.
   */
  public static HuggingFaceTokenizers load(final Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("--tokenizer-models-dir " + dir + " is not a directory");
    }
    final HuggingFaceTokenizers t = new HuggingFaceTokenizers();
    final ObjectMapper json = new ObjectMapper();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path modelDir : ds) {
        final Path tj = modelDir.resolve("tokenizer.json");
        if (!Files.isRegularFile(tj)) {
          continue;
        }
        final String model = modelDir.getFileName().toString();
        try {
          ChatTemplate template = null;
          final Map<String, Object> vars = new HashMap<>();
          final Path cfg = modelDir.resolve("tokenizer_config.json");
          if (Files.isRegularFile(cfg)) {
            final JsonNode c = json.readTree(cfg.toFile());
            for (String special : List.of("bos_token", "eos_token", "unk_token", "pad_token")) {
              final JsonNode v = c.get(special);
              if (v != null && v.isTextual()) {
                vars.put(special, v.asText());
              } else if (v != null && v.has("content")) {
                vars.put(special, v.get("content").asText());
              }
            }
            final JsonNode tpl = c.get("chat_template");
            if (tpl != null && tpl.isTextual()) {
              template = ChatTemplate.of(tpl.asText(), vars);
            }
          }
          // Refuse what the native library would accept and then abort the JVM on.
          TokenizerJsonCheck.check(json.readTree(tj.toFile()));
          final HuggingFaceTokenizer tok =
              HuggingFaceTokenizer.builder()
                  .optTokenizerPath(tj)
                  .optAddSpecialTokens(true)
                  .optTruncation(false)
                  .optPadding(false)
                  .build();
          t.models.put(model, new Model(tok, template));
          LOG.info("event=tokenizer_loaded model={} chat_template={}", model, template != null);
        } catch (IOException | ChatTemplateException | RuntimeException e) {
          LOG.error("event=tokenizer_load_failed model={} reason=\"{}\"", model, String.valueOf(e));
        }
      }
    }
    return t;
  }

  /** Models with a tokenizer. */
  public java.util.Set<String> models() {
    return models.keySet();
  }

  @Override
  public boolean supports(final String modelId) {
    return models.containsKey(modelId);
  }

  /**
   * The text the tokenizer sees for a single user turn (the rendered chat template, if any).
   *
   * @throws ChatTemplateException when the model's chat template fails (see {@link ChatTemplate})
   */
  public String render(final String modelId, final String text) throws ChatTemplateException {
    final Model m = models.get(modelId);
    if (m == null || m.chatTemplate() == null) {
      return text;
    }
    return m.chatTemplate().render(text);
  }

  @Override
  public int[] encodeUserTurn(final String modelId, final String text)
      throws ChatTemplateException {
    final Model m = models.get(modelId);
    if (m == null) {
      throw new IllegalArgumentException("no tokenizer for model " + modelId);
    }
    final Encoding e;
    if (m.chatTemplate() == null) {
      e = m.tokenizer().encode(text);
    } else {
      e = m.tokenizer().encode(render(modelId, text), false, false);
    }
    final long[] ids = e.getIds();
    final int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public void close() {
    for (Model m : models.values()) {
      try {
        m.tokenizer().close();
      } catch (RuntimeException e) {
        throw new UncheckedIOException(new IOException("closing tokenizer", e));
      }
    }
    models.clear();
  }
}
