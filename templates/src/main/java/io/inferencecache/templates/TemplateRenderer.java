package io.inferencecache.templates;

import java.util.Map;
import java.util.TreeSet;

/**
 * Renders a {@link PromptTemplate} with a request's variables: each {@code {{.slot}}} placeholder
 * is replaced by the slot's value, copied verbatim. Variables are data: a value is never scanned,
 * so {@code {{...}}} inside a value is text (no expressions, no recursion, no includes).
 *
 * <p>The rules, checked in this order (the first broken one is the answer):
 *
 * <ol>
 *   <li>a value longer than {@link TemplateRules#MAX_VARIABLE_CHARS} characters fails, naming the
 *       slot;
 *   <li>a required slot with no value, or an empty one, fails, naming the slot (in declaration
 *       order);
 *   <li>a variable that names no slot of the template fails, naming the variable (the smallest such
 *       name; a name over {@value TemplateRules#MAX_QUOTED_CHARS} characters is quoted cut, see
 *       {@link TemplateRules#excerpt});
 *   <li>a prompt over {@link TemplateRules#MAX_RENDERED_BYTES} UTF-8 bytes fails.
 * </ol>
 *
 * An optional slot without a value renders as nothing. The answer reports where the stable prefix
 * ends: the offset of the first Mutable placeholder's value (the whole prompt when there is none).
 *
 * <p>Memory: one call allocates the result's exactly-sized UTF-8 array and the small result object,
 * nothing else (the literal text is encoded once, at compile time; values are encoded straight into
 * the result). Thread-safe: no state.
 */
public final class TemplateRenderer {
  private TemplateRenderer() {}

  /**
   * Renders {@code t} with {@code variables} (null: none). Never throws for bad variables: a broken
   * rule is a {@link RenderResult.Failure}.
   */
  public static RenderResult render(final PromptTemplate t, final Map<String, String> variables) {
    final Map<String, String> vars = variables == null ? Map.of() : variables;
    final String[] names = t.slotNames;
    // 1-2. value bounds and required slots; count the variables that name a slot
    int known = 0;
    for (int i = 0; i < names.length; i++) {
      final String v = vars.get(names[i]);
      if (v != null) {
        known++;
        if (v.length() > TemplateRules.MAX_VARIABLE_CHARS) {
          return new RenderResult.Failure(
              names[i],
              "the value of slot \""
                  + names[i]
                  + "\" of template "
                  + t.ref()
                  + " is "
                  + v.length()
                  + " characters long; the most is "
                  + TemplateRules.MAX_VARIABLE_CHARS);
        }
      }
    }
    for (int i = 0; i < names.length; i++) {
      if (t.slotRequired[i]) {
        final String v = vars.get(names[i]);
        if (v == null || v.isEmpty()) {
          return new RenderResult.Failure(
              names[i],
              "slot \"" + names[i] + "\" of template " + t.ref() + " is required and has no value");
        }
      }
    }
    // 3. unknown variables
    if (known < vars.size()) {
      final TreeSet<String> unknown = new TreeSet<>(vars.keySet());
      for (String n : names) {
        unknown.remove(n);
      }
      final String first = TemplateRules.excerpt(unknown.first());
      return new RenderResult.Failure(
          first, "variable \"" + first + "\" names no slot of template " + t.ref());
    }
    // 4. size
    final int[] slotOf = t.placeholderSlot;
    long bytes = t.literalBytes;
    for (int k = 0; k < slotOf.length; k++) {
      final String v = vars.get(names[slotOf[k]]);
      if (v != null) {
        bytes += Utf8.length(v);
      }
    }
    if (bytes > TemplateRules.MAX_RENDERED_BYTES) {
      return new RenderResult.Failure(
          "",
          "the prompt rendered from template "
              + t.ref()
              + " would be "
              + bytes
              + " bytes; the most is "
              + TemplateRules.MAX_RENDERED_BYTES);
    }
    // Fill.
    final byte[] out = new byte[(int) bytes];
    final byte[][] literals = t.literals;
    int pos = 0;
    int chars = 0;
    int stableBytes = -1;
    int stableChars = -1;
    for (int k = 0; k < slotOf.length; k++) {
      System.arraycopy(literals[k], 0, out, pos, literals[k].length);
      pos += literals[k].length;
      chars += t.literalChars[k];
      if (k == t.firstMutable) {
        stableBytes = pos;
        stableChars = chars;
      }
      final String v = vars.get(names[slotOf[k]]);
      if (v != null) {
        pos = Utf8.encode(v, out, pos);
        chars += v.length();
      }
    }
    final byte[] last = literals[slotOf.length];
    System.arraycopy(last, 0, out, pos, last.length);
    chars += t.literalChars[slotOf.length];
    if (stableBytes < 0) {
      stableBytes = out.length;
      stableChars = chars;
    }
    return new RenderResult.Rendered(out, chars, stableBytes, stableChars);
  }
}
