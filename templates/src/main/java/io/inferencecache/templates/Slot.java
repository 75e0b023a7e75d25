package io.inferencecache.templates;

/**
 * One named place of a template body.
 *
 * @param name the placeholder name ({@code {{.name}}}); {@link TemplateRules} says what is
 *     well-formed
 * @param type Stable or Mutable; {@code null} only in a spec that {@link TemplateRules} refuses
 * @param required whether a RenderTemplate call must give the slot a non-empty value
 * @param description free text for people ({@code ""} when none); part of the revision
 */
public record Slot(String name, SlotType type, boolean required, String description) {
  /** A slot with no description. */
  public Slot(final String name, final SlotType type, final boolean required) {
    this(name, type, required, "");
  }

  /** Null text becomes {@code ""}, so that rules and digest see one spelling of "absent". */
  public Slot {
    name = name == null ? "" : name;
    description = description == null ? "" : description;
  }
}
