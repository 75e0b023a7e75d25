package io.inferencecache.templates;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the placeholders of a template body. The grammar, the only one there is:
 *
 * <pre>
 * placeholder = "{{" ws* "." name ws* "}}"      ws = ' ' | '\t'
 * name        = [A-Za-z_][A-Za-z0-9_]*          (at most {@value TemplateRules#MAX_SLOT_NAME_CHARS} chars)
 * </pre>
 *
 * Every {@code {{} in the body opens a placeholder: one that does not continue as above (an
 * expression, a pipeline, {@code {{name}}} without the dot, an unclosed {@code {{}) is an error at
 * its offset. A lone {@code }}} is literal text. A body has no escape for a literal {@code {{}: such
 * text belongs in a slot value, which is data and never scanned.
 */
final class BodyScanner {
  /** One placeholder: the slot name and the body range {@code [start, end)} it occupies. */
  record Placeholder(String name, int start, int end) {}

  /** The placeholders in body order, or the offset and text of the first syntax error. */
  record Scan(List<Placeholder> placeholders, int errorOffset, String error) {
    boolean ok() {
      return error == null;
    }
  }

  private BodyScanner() {}

  static Scan scan(final String body) {
    final List<Placeholder> out = new ArrayList<>();
    int from = 0;
    while (true) {
      final int open = body.indexOf("{{", from);
      if (open < 0) {
        return new Scan(out, -1, null);
      }
      int i = skipBlanks(body, open + 2);
      if (i >= body.length() || body.charAt(i) != '.') {
        return syntaxError(out, body, open);
      }
      i++;
      final int nameStart = i;
      if (i >= body.length() || !nameStartChar(body.charAt(i))) {
        return syntaxError(out, body, open);
      }
      i++;
      while (i < body.length() && namePartChar(body.charAt(i))) {
        i++;
      }
      final int nameEnd = i;
      i = skipBlanks(body, i);
      if (!body.startsWith("}}", i)) {
        return syntaxError(out, body, open);
      }
      if (nameEnd - nameStart > TemplateRules.MAX_SLOT_NAME_CHARS) {
        return new Scan(
            out,
            open,
            "placeholder at offset "
                + open
                + " has a name of "
                + (nameEnd - nameStart)
                + " characters; the most is "
                + TemplateRules.MAX_SLOT_NAME_CHARS);
      }
      out.add(new Placeholder(body.substring(nameStart, nameEnd), open, i + 2));
      from = i + 2;
    }
  }

  private static Scan syntaxError(
      final List<Placeholder> found, final String body, final int open) {
    final int end = Math.min(body.length(), open + 24);
    return new Scan(
        found,
        open,
        "\"{{\" at offset "
            + open
            + " opens no {{.slot}} placeholder (near \""
            + body.substring(open, end)
            + "\"): only {{.name}} or {{ .name }} is allowed, no expressions; a literal \"{{\""
            + " must come from a slot value");
  }

  private static int skipBlanks(final String s, final int from) {
    int i = from;
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  static boolean nameStartChar(final char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  static boolean namePartChar(final char c) {
    return nameStartChar(c) || (c >= '0' && c <= '9');
  }
}
