package io.inferencecache.service.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Iterator;

/**
 * Checks a {@code tokenizer.json} for the shapes the native tokenizers library (Rust, through DJL's
 * JNI binding) accepts at load but then <b>panics</b> on while encoding. A Rust panic cannot unwind
 * through JNI: it aborts the whole JVM ({@code fatal runtime error: failed to initiate panic},
 * SIGABRT) at the first {@code prompt_text} lookup. Known shapes (tokenizers 0.21.4, DJL 0.38.0):
 *
 * <ul>
 *   <li>a {@code TemplateProcessing} post-processor (at any depth, e.g. inside a {@code Sequence};
 *       whatever its {@code type} field says) whose {@code single} or {@code pair} template names a
 *       {@code SpecialToken} missing from its {@code special_tokens} ({@code template.rs}: "no
 *       entry found for key");
 *   <li>a {@code single} template with a {@code Sequence} piece other than {@code A} ("index out of
 *       bounds: the len is 1 but the index is 1"), or a {@code pair} template with one other than
 *       {@code A} or {@code B}.
 * </ul>
 *
 * <p>Deserialization skips the library's own template validation, which is why these load; and it
 * recognizes a template by its fields whatever its {@code "type"} says, so every object with a
 * {@code single} or {@code pair} template is checked.
 */
public final class TokenizerJsonCheck {
  private TokenizerJsonCheck() {}

  /**
   * @param root the parsed {@code tokenizer.json}
   * @throws IOException naming the problem, for a file the native library would crash on
   */
  public static void check(final JsonNode root) throws IOException {
    if (root == null || !root.isObject()) {
      throw new IOException("tokenizer.json is not a JSON object");
    }
    walk(root, 0);
  }

  private static void walk(final JsonNode node, final int depth) throws IOException {
    if (depth > 256) {
      throw new IOException("tokenizer.json nested deeper than 256");
    }
    if (node.isObject() && (node.has("single") || node.has("pair"))) {
      // By shape, not by "type": the library picks the post-processor variant by its fields (a
      // misspelled "type" still deserializes as TemplateProcessing — a fuzz finding).
      template(node);
    }
    if (node.isContainerNode()) {
      for (final Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
        walk(it.next(), depth + 1);
      }
    }
  }

  private static void template(final JsonNode processor) throws IOException {
    final JsonNode special = processor.get("special_tokens");
    pieces(processor.get("single"), special, "A");
    pieces(processor.get("pair"), special, "AB");
  }

  private static void pieces(
      final JsonNode template, final JsonNode special, final String sequences) throws IOException {
    if (template == null || !template.isArray()) {
      return; // absent or a string template: the library parses and validates those itself
    }
    for (final JsonNode piece : template) {
      final JsonNode token = piece.get("SpecialToken");
      if (token != null) {
        final JsonNode id = token.get("id");
        if (id == null
            || !id.isTextual()
            || special == null
            || !special.isObject()
            || !special.has(id.asText())) {
          throw new IOException(
              "tokenizer.json TemplateProcessing names special token "
                  + id
                  + " missing from special_tokens (the native tokenizer would abort the JVM)");
        }
      }
      final JsonNode sequence = piece.get("Sequence");
      if (sequence != null) {
        final JsonNode id = sequence.get("id");
        if (id == null
            || !id.isTextual()
            || !sequences.contains(id.asText())
            || id.asText().length() != 1) {
          throw new IOException(
              "tokenizer.json TemplateProcessing sequence "
                  + id
                  + " is not one of "
                  + String.join("/", sequences.split(""))
                  + " (the native tokenizer would abort the JVM)");
        }
      }
    }
  }
}
