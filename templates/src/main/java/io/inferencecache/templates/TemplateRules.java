package io.inferencecache.templates;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every rule a PromptTemplate spec must keep, in one place: the operator's webhook and reconciler,
 * the server's {@code /prompt-templates} decoder and {@link PromptTemplate#compile} all call {@link
 * #validate}. Each violation names its field ({@code spec.body}, {@code spec.slots[1].type}, …).
 *
 * <ol>
 *   <li>{@code spec.modelId}: at most {@value #MAX_MODEL_ID_CHARS} characters, no control
 *       characters (optional).
 *   <li>{@code spec.body}: not empty, at most {@value #MAX_BODY_CHARS} characters.
 *   <li>{@code spec.slots}: at most {@value #MAX_SLOTS}.
 *   <li>{@code spec.slots[i].name}: well-formed ({@code [A-Za-z_][A-Za-z0-9_]*}, at most {@value
 *       #MAX_SLOT_NAME_CHARS} characters) and unique.
 *   <li>{@code spec.slots[i].type}: {@code Stable} or {@code Mutable}.
 *   <li>{@code spec.slots[i].description}: at most {@value #MAX_DESCRIPTION_CHARS} characters.
 *   <li>{@code spec.body}: every {@code {{} opens a well-formed placeholder ({@link BodyScanner}).
 *   <li>{@code spec.body}: every placeholder names a declared slot.
 *   <li>{@code spec.body}: stable before mutable — no Stable placeholder after the first Mutable one
 *       (the stable prefix is everything before the first Mutable placeholder).
 *   <li>{@code spec.slots[i].required}: a required slot appears in the body.
 * </ol>
 *
 * An optional slot the body never names is allowed (its values are refused by nothing and used by
 * nothing). Rules 7–10 are checked only when rules 2 and 4–5 hold, so that one mistake gives one
 * violation.
 */
public final class TemplateRules {
  /** Longest body, in UTF-16 characters. */
  public static final int MAX_BODY_CHARS = 64 * 1024;

  /** Most slots in one template. */
  public static final int MAX_SLOTS = 64;

  /** Longest slot name. */
  public static final int MAX_SLOT_NAME_CHARS = 63;

  /** Longest slot description. */
  public static final int MAX_DESCRIPTION_CHARS = 1024;

  /** Longest model id. */
  public static final int MAX_MODEL_ID_CHARS = 256;

  /** Longest value of one variable at render time, in UTF-16 characters. */
  public static final int MAX_VARIABLE_CHARS = 256 * 1024;

  /**
   * Largest rendered prompt, in UTF-8 bytes: LookupRoute's {@code prompt_text} bound, so a rendered
   * prompt is always a valid {@code prompt_text}.
   */
  public static final int MAX_RENDERED_BYTES = 1 << 20;

  private TemplateRules() {}

  /** The violations of {@code spec}, fields under {@code spec.}; empty when it is valid. */
  public static List<TemplateViolation> validate(final PromptTemplateSpec spec) {
    return validate(spec, "spec");
  }

  /**
   * The violations of {@code spec}, each field named under {@code prefix} (e.g. {@code spec} for
   * the custom resource, {@code templates[3]} for the server's JSON body).
   */
  public static List<TemplateViolation> validate(
      final PromptTemplateSpec spec, final String prefix) {
    final List<TemplateViolation> out = new ArrayList<>();
    final String body = spec.body();
    // 1. modelId
    if (spec.modelId().length() > MAX_MODEL_ID_CHARS) {
      out.add(
          v(
              prefix + ".modelId",
              "is "
                  + spec.modelId().length()
                  + " characters long; the most is "
                  + MAX_MODEL_ID_CHARS));
    } else if (hasControlChar(spec.modelId())) {
      out.add(v(prefix + ".modelId", "must not contain control characters"));
    }
    // 2. body size
    boolean bodyOk = true;
    if (body.isEmpty()) {
      out.add(v(prefix + ".body", "must not be empty"));
      bodyOk = false;
    } else if (body.length() > MAX_BODY_CHARS) {
      out.add(
          v(
              prefix + ".body",
              "is " + body.length() + " characters long; the most is " + MAX_BODY_CHARS));
      bodyOk = false;
    }
    // 3. slot count
    final List<Slot> slots = spec.slots();
    if (slots.size() > MAX_SLOTS) {
      out.add(v(prefix + ".slots", "has " + slots.size() + " slots; the most is " + MAX_SLOTS));
      return out;
    }
    // 4-6. each slot
    boolean slotsOk = true;
    final Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < slots.size(); i++) {
      final Slot s = slots.get(i);
      final String f = prefix + ".slots[" + i + "]";
      if (!isSlotName(s.name())) {
        out.add(v(f + ".name", nameProblem(s.name())));
        slotsOk = false;
      } else {
        final Integer earlier = index.putIfAbsent(s.name(), i);
        if (earlier != null) {
          out.add(
              v(
                  f + ".name",
                  "\""
                      + s.name()
                      + "\" is already the name of "
                      + prefix
                      + ".slots["
                      + earlier
                      + "]"));
          slotsOk = false;
        }
      }
      if (s.type() == null) {
        out.add(v(f + ".type", "must be Stable or Mutable"));
        slotsOk = false;
      }
      if (s.description().length() > MAX_DESCRIPTION_CHARS) {
        out.add(
            v(
                f + ".description",
                "is "
                    + s.description().length()
                    + " characters long; the most is "
                    + MAX_DESCRIPTION_CHARS));
      }
    }
    if (!bodyOk || !slotsOk) {
      return out;
    }
    // 7. syntax
    final BodyScanner.Scan scan = BodyScanner.scan(body);
    if (!scan.ok()) {
      out.add(v(prefix + ".body", scan.error()));
      return out;
    }
    // 8-9. references and order
    final Set<String> referenced = new HashSet<>();
    BodyScanner.Placeholder firstMutable = null;
    for (BodyScanner.Placeholder p : scan.placeholders()) {
      final Integer at = index.get(p.name());
      if (at == null) {
        out.add(
            v(
                prefix + ".body",
                "{{."
                    + p.name()
                    + "}} at offset "
                    + p.start()
                    + " names no slot of "
                    + prefix
                    + ".slots"));
        continue;
      }
      referenced.add(p.name());
      final SlotType type = slots.get(at).type();
      if (type == SlotType.MUTABLE && firstMutable == null) {
        firstMutable = p;
      } else if (type == SlotType.STABLE && firstMutable != null) {
        out.add(
            v(
                prefix + ".body",
                "Stable slot \""
                    + p.name()
                    + "\" at offset "
                    + p.start()
                    + " comes after Mutable slot \""
                    + firstMutable.name()
                    + "\" at offset "
                    + firstMutable.start()
                    + ": every Stable placeholder must come before the first Mutable one"));
      }
    }
    // 10. required slots appear
    for (int i = 0; i < slots.size(); i++) {
      final Slot s = slots.get(i);
      if (s.required() && !referenced.contains(s.name())) {
        out.add(
            v(
                prefix + ".slots[" + i + "].required",
                "slot \""
                    + s.name()
                    + "\" is required but "
                    + prefix
                    + ".body has no {{."
                    + s.name()
                    + "}}"));
      }
    }
    return out;
  }

  /** Throws the violations of {@code spec} (fields under {@code spec.}), if any. */
  public static void check(final PromptTemplateSpec spec) throws InvalidTemplateException {
    final List<TemplateViolation> v = validate(spec);
    if (!v.isEmpty()) {
      throw new InvalidTemplateException(v);
    }
  }

  /**
   * Most characters of a caller's string (a variable name, a template ref) an answer quotes: a
   * longer one is cut there and marked {@code …}, so an answer never echoes a huge input whole.
   */
  public static final int MAX_QUOTED_CHARS = 64;

  /** {@code s}, or its first {@value #MAX_QUOTED_CHARS} characters and {@code …} when longer. */
  public static String excerpt(final String s) {
    if (s.length() <= MAX_QUOTED_CHARS) {
      return s;
    }
    final int end =
        Character.isHighSurrogate(s.charAt(MAX_QUOTED_CHARS - 1))
            ? MAX_QUOTED_CHARS - 1
            : MAX_QUOTED_CHARS;
    return s.substring(0, end) + "…";
  }

  /** Longest namespace or name of a template (Kubernetes' DNS subdomain bound). */
  public static final int MAX_OBJECT_NAME_CHARS = 253;

  /**
   * Adds a violation of {@code field} unless {@code s} is a Kubernetes object name: 1 to {@value
   * #MAX_OBJECT_NAME_CHARS} characters of {@code a-z}, {@code 0-9}, {@code -} and {@code .},
   * starting and ending with a letter or digit. (A template ref is {@code namespace/name}.)
   */
  public static void checkObjectName(
      final String s, final String field, final List<TemplateViolation> out) {
    if (s == null || s.isEmpty()) {
      out.add(v(field, "must not be empty"));
      return;
    }
    if (s.length() > MAX_OBJECT_NAME_CHARS) {
      out.add(
          v(field, "is " + s.length() + " characters long; the most is " + MAX_OBJECT_NAME_CHARS));
      return;
    }
    for (int i = 0; i < s.length(); i++) {
      final char c = s.charAt(i);
      final boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      final boolean edge = i == 0 || i == s.length() - 1;
      if (!alnum && (edge || (c != '-' && c != '.'))) {
        out.add(
            v(
                field,
                "\""
                    + s
                    + "\" is not a Kubernetes object name (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit)"));
        return;
      }
    }
  }

  /** Whether {@code s} is a well-formed slot name. */
  public static boolean isSlotName(final String s) {
    if (s == null || s.isEmpty() || s.length() > MAX_SLOT_NAME_CHARS) {
      return false;
    }
    if (!BodyScanner.nameStartChar(s.charAt(0))) {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      if (!BodyScanner.namePartChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static String nameProblem(final String s) {
    if (s.isEmpty()) {
      return "must not be empty";
    }
    if (s.length() > MAX_SLOT_NAME_CHARS) {
      return "is " + s.length() + " characters long; the most is " + MAX_SLOT_NAME_CHARS;
    }
    return "\"" + s + "\" is not a slot name: a letter or '_', then letters, digits or '_'";
  }

  private static boolean hasControlChar(final String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isISOControl(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static TemplateViolation v(final String field, final String message) {
    return new TemplateViolation(field, message);
  }
}
