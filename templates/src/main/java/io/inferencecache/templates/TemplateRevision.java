package io.inferencecache.templates;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The revision of a template: {@code sha256:} and the first 16 hex digits (64 bits) of the SHA-256
 * of the spec's canonical JSON in UTF-8. The operator writes it to {@code status.templateRevision};
 * the server computes it from the body it was given and answers it as RenderTemplate's {@code
 * template_revision}, so the two agree by construction.
 *
 * <p>The canonical JSON ({@link #canonicalJson}) has the keys of every object in code-point order,
 * no whitespace, strings escaped as RFC 8785 (JCS) does ({@code \"}, {@code \\}, {@code \b \f \n \r
 * \t}, other characters below U+0020 as lower-case backslash-u00xx escapes, everything else
 * literal), leaves out {@code modelId} and each {@code description} when empty, always writes
 * {@code required}, and keeps the slots in declaration order:
 *
 * <pre>
 * {"body":"…","modelId":"…","slots":[{"description":"…","name":"…","required":true,"type":"Stable"}]}
 * </pre>
 */
public final class TemplateRevision {
  /** The prefix of every revision. */
  public static final String PREFIX = "sha256:";

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private TemplateRevision() {}

  /** The revision of {@code spec} (valid or not: the digest is of the text). */
  public static String of(final PromptTemplateSpec spec) {
    final byte[] digest;
    try {
      digest =
          MessageDigest.getInstance("SHA-256")
              .digest(canonicalJson(spec).getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    final StringBuilder sb = new StringBuilder(PREFIX.length() + 16).append(PREFIX);
    for (int i = 0; i < 8; i++) {
      sb.append(HEX[(digest[i] >> 4) & 0xF]).append(HEX[digest[i] & 0xF]);
    }
    return sb.toString();
  }

  /** The canonical JSON the revision digests. */
  public static String canonicalJson(final PromptTemplateSpec spec) {
    final StringBuilder sb =
        new StringBuilder(spec.body().length() + 64 * (spec.slots().size() + 1));
    sb.append("{\"body\":");
    string(sb, spec.body());
    if (!spec.modelId().isEmpty()) {
      sb.append(",\"modelId\":");
      string(sb, spec.modelId());
    }
    sb.append(",\"slots\":[");
    boolean first = true;
    for (Slot s : spec.slots()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append('{');
      if (!s.description().isEmpty()) {
        sb.append("\"description\":");
        string(sb, s.description());
        sb.append(',');
      }
      sb.append("\"name\":");
      string(sb, s.name());
      sb.append(",\"required\":").append(s.required());
      if (s.type() != null) {
        sb.append(",\"type\":");
        string(sb, s.type().wireName());
      }
      sb.append('}');
    }
    return sb.append("]}").toString();
  }

  private static void string(final StringBuilder sb, final String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      final char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
