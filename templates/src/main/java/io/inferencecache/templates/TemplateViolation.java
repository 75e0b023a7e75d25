package io.inferencecache.templates;

/**
 * One broken rule of a template spec.
 *
 * @param field the field at fault, e.g. {@code spec.slots[1].type} or {@code spec.body}
 * @param message what is wrong, naming the slot or the offset in the body
 */
public record TemplateViolation(String field, String message) {
  @Override
  public String toString() {
    return field + ": " + message;
  }
}
