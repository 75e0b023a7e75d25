package io.inferencecache.templates;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A valid template, compiled for rendering: its body cut at the placeholders into literal runs kept
 * as UTF-8, each placeholder resolved to its slot, the first Mutable placeholder found, and its
 * {@link TemplateRevision}. Immutable and thread-safe; made only by {@link #compile}.
 */
public final class PromptTemplate {
  private final String namespace;
  private final String name;
  private final String ref;
  private final PromptTemplateSpec spec;
  private final String revision;

  // The render plan: literal[0] placeholder[0] literal[1] … placeholder[n-1] literal[n].
  final byte[][] literals;
  final int[] literalChars;
  final int[] placeholderSlot;

  /** Index of the first Mutable placeholder; {@code placeholderSlot.length} when none. */
  final int firstMutable;

  final String[] slotNames;
  final boolean[] slotRequired;
  final int literalBytes;

  private PromptTemplate(
      final String namespace,
      final String name,
      final PromptTemplateSpec spec,
      final List<BodyScanner.Placeholder> placeholders) {
    this.namespace = namespace;
    this.name = name;
    this.ref = namespace + "/" + name;
    this.spec = spec;
    this.revision = TemplateRevision.of(spec);
    final List<Slot> slots = spec.slots();
    this.slotNames = new String[slots.size()];
    this.slotRequired = new boolean[slots.size()];
    for (int i = 0; i < slots.size(); i++) {
      slotNames[i] = slots.get(i).name();
      slotRequired[i] = slots.get(i).required();
    }
    final String body = spec.body();
    final int n = placeholders.size();
    this.literals = new byte[n + 1][];
    this.literalChars = new int[n + 1];
    this.placeholderSlot = new int[n];
    int mutable = n;
    int bytes = 0;
    int from = 0;
    for (int k = 0; k < n; k++) {
      final BodyScanner.Placeholder p = placeholders.get(k);
      literals[k] = body.substring(from, p.start()).getBytes(StandardCharsets.UTF_8);
      literalChars[k] = p.start() - from;
      bytes += literals[k].length;
      final int slot = slotIndex(p.name());
      placeholderSlot[k] = slot;
      if (mutable == n && slots.get(slot).type() == SlotType.MUTABLE) {
        mutable = k;
      }
      from = p.end();
    }
    literals[n] = body.substring(from).getBytes(StandardCharsets.UTF_8);
    literalChars[n] = body.length() - from;
    bytes += literals[n].length;
    this.firstMutable = mutable;
    this.literalBytes = bytes;
  }

  /**
   * Compiles {@code spec} as template {@code namespace/name}.
   *
   * @throws InvalidTemplateException when the spec breaks a {@link TemplateRules} rule (fields
   *     under {@code spec.}) or a name is not a Kubernetes object name ({@code metadata.namespace},
   *     {@code metadata.name})
   */
  public static PromptTemplate compile(
      final String namespace, final String name, final PromptTemplateSpec spec)
      throws InvalidTemplateException {
    final List<TemplateViolation> v = new ArrayList<>();
    TemplateRules.checkObjectName(namespace, "metadata.namespace", v);
    TemplateRules.checkObjectName(name, "metadata.name", v);
    v.addAll(TemplateRules.validate(spec));
    if (!v.isEmpty()) {
      throw new InvalidTemplateException(v);
    }
    return new PromptTemplate(namespace, name, spec, BodyScanner.scan(spec.body()).placeholders());
  }

  private int slotIndex(final String slot) {
    final int i = slotIndexOf(slot);
    if (i < 0) {
      throw new IllegalStateException("validated body names an undeclared slot " + slot);
    }
    return i;
  }

  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  /** {@code namespace/name}: RenderTemplate's {@code template_ref}. */
  public String ref() {
    return ref;
  }

  public PromptTemplateSpec spec() {
    return spec;
  }

  /** {@link TemplateRevision#of} the spec. */
  public String revision() {
    return revision;
  }

  /** The index of slot {@code slot} in the spec, or -1. */
  public int slotIndexOf(final String slot) {
    for (int i = 0; i < slotNames.length; i++) {
      if (slotNames[i].equals(slot)) {
        return i;
      }
    }
    return -1;
  }
}
