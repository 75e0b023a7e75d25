package io.inferencecache.controlplane.webhook;

/**
 * One refused field, rendered as Kubernetes renders a {@code field.Error}: {@code <field>: Invalid
 * value: "<bad>": <detail>}, {@code <field>: Forbidden: <detail>}, {@code <field>: Required value:
 * <detail>}, {@code <field>: Unsupported value: "<bad>": <detail>} or {@code <field>: Duplicate
 * value: "<bad>": <detail>}. Equality (type, field, bad value, detail) is what "introduced by this
 * update" compares.
 *
 * @param type the error type
 * @param field the field path, e.g. {@code spec.evictionTTL}
 * @param badValue the refused value as text (only for {@link Type#INVALID}, {@link
 *     Type#NOT_SUPPORTED} and {@link Type#DUPLICATE}), or null
 * @param detail what is wrong and what is expected
 */
public record FieldError(Type type, String field, String badValue, String detail) {
  /** Kubernetes' field error types used here. */
  public enum Type {
    INVALID("Invalid value", "FieldValueInvalid"),
    FORBIDDEN("Forbidden", "FieldValueForbidden"),
    REQUIRED("Required value", "FieldValueRequired"),
    NOT_SUPPORTED("Unsupported value", "FieldValueNotSupported"),
    DUPLICATE("Duplicate value", "FieldValueDuplicate");

    private final String text;
    private final String reason;

    Type(final String text, final String reason) {
      this.text = text;
      this.reason = reason;
    }

    /** The cause reason of the Status details. */
    public String reason() {
      return reason;
    }
  }

  public static FieldError invalid(final String field, final Object badValue, final String detail) {
    return new FieldError(Type.INVALID, field, String.valueOf(badValue), detail);
  }

  public static FieldError forbidden(final String field, final String detail) {
    return new FieldError(Type.FORBIDDEN, field, null, detail);
  }

  public static FieldError required(final String field, final String detail) {
    return new FieldError(Type.REQUIRED, field, null, detail);
  }

  public static FieldError notSupported(
      final String field, final Object badValue, final String detail) {
    return new FieldError(Type.NOT_SUPPORTED, field, String.valueOf(badValue), detail);
  }

  public static FieldError duplicate(
      final String field, final Object badValue, final String detail) {
    return new FieldError(Type.DUPLICATE, field, String.valueOf(badValue), detail);
  }

  /** The message without the field: {@code Invalid value: "x": detail}. */
  public String causeMessage() {
    final StringBuilder b = new StringBuilder(type.text);
    if (badValue != null) {
      b.append(": \"").append(badValue).append('"');
    }
    if (detail != null && !detail.isEmpty()) {
      b.append(": ").append(detail);
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return field + ": " + causeMessage();
  }
}
