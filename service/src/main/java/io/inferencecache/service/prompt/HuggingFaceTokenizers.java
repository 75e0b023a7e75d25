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
    final Model m = model(modelId);
    return encode(m, m.chatTemplate() == null ? text : render(modelId, text));
  }

  /**
   * The whole turn is tokenized as {@link #encodeUserTurn} does; the prefix is the rendered turn
   * (chat template applied) cut where {@code text[0, prefixChars)} ends in it, tokenized the same
   * way. When the chat template does not copy the text verbatim (it trims it, say) the cut is
   * placed by the trimmed text; when it cannot be placed at all, no token counts as prefix.
   */
  @Override
  public PrefixTokens encodeUserTurnPrefix(
      final String modelId, final String text, final int prefixChars) throws ChatTemplateException {
    final Model m = model(modelId);
    final String whole = m.chatTemplate() == null ? text : render(modelId, text);
    final int[] ids = encode(m, whole);
    final int chars = Math.max(0, Math.min(prefixChars, text.length()));
    final int cut = m.chatTemplate() == null ? chars : cut(whole, text, chars);
    if (cut <= 0) {
      return new PrefixTokens(ids, 0);
    }
    return new PrefixTokens(
        ids, PromptTokenizer.commonRun(ids, encode(m, whole.substring(0, cut))));
  }

  /**
   * Where {@code text[0, prefixChars)} ends in the rendered turn {@code whole}: at the text's first
   * occurrence (a wrong, earlier one can only make the prefix shorter); -1 when it cannot be
   * placed.
   */
  private static int cut(final String whole, final String text, final int prefixChars) {
    final int at = whole.indexOf(text);
    if (at >= 0) {
      return at + prefixChars;
    }
    final String trimmed = text.strip();
    final int lead = trimmed.isEmpty() ? 0 : text.indexOf(trimmed);
    final int tat = trimmed.isEmpty() ? -1 : whole.indexOf(trimmed);
    if (tat < 0) {
      return -1;
    }
    return tat + Math.max(0, Math.min(prefixChars - lead, trimmed.length()));
  }

  private Model model(final String modelId) {
    final Model m = models.get(modelId);
    if (m == null) {
      throw new IllegalArgumentException("no tokenizer for model " + modelId);
    }
    return m;
  }

  /** Without a chat template with the tokenizer's special tokens; rendered text without them. */
  private static int[] encode(final Model m, final String s) {
    final Encoding e =
        m.chatTemplate() == null ? m.tokenizer().encode(s) : m.tokenizer().encode(s, false, false);
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
