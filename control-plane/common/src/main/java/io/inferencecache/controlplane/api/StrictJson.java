package io.inferencecache.controlplane.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;

/**
 * A streaming reader with Go {@code encoding/json} decoding rules, for request bodies decoded into
 * fixed structs: keys match exactly or else case-insensitively; unknown keys are errors; integer
 * fields reject fraction and exponent literals, strings and out-of-range values; {@code null} on a
 * scalar keeps the zero value and on a pointer means absent; a duplicated key is decoded again (the
 * last wins). As upstream, a syntax error wins over a type error, and of type errors the first is
 * reported. Not thread-safe; one per body.
 */
final class StrictJson implements AutoCloseable {
  private static final JsonFactory FACTORY = JsonFactory.builder().build();

  private final JsonParser parser;
  private final byte[] body;
  private final int length;
  private String firstError;

  StrictJson(final byte[] body, final int length) throws JsonDecodeException {
    this.body = body;
    this.length = length;
    try {
      this.parser = FACTORY.createParser(body, 0, length);
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  /** The next token; a syntax error is thrown at once, an empty body is {@code EOF}. */
  JsonToken next() throws JsonDecodeException {
    try {
      final JsonToken t = parser.nextToken();
      if (t == null) {
        throw new JsonDecodeException("unexpected EOF");
      }
      return t;
    } catch (JsonProcessingException e) {
      throw new JsonDecodeException(syntax(e));
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  /** The first token of the body, {@code EOF} when the body is empty or blank. */
  JsonToken first() throws JsonDecodeException {
    try {
      final JsonToken t = parser.nextToken();
      if (t == null) {
        throw new JsonDecodeException("EOF");
      }
      return t;
    } catch (JsonProcessingException e) {
      throw new JsonDecodeException(syntax(e));
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  private static String syntax(final JsonProcessingException e) {
    final String m = e.getOriginalMessage();
    if (m != null && m.startsWith("Unexpected end-of-input")) {
      return "unexpected EOF";
    }
    final String first = m == null ? "syntax error" : m.lines().findFirst().orElse(m);
    return "invalid JSON: " + first;
  }

  /** Records a type error (the first one is reported once the value has been read). */
  void typeError(final String message) {
    if (firstError == null) {
      firstError = message;
    }
  }

  /** Throws the first recorded type error, if any. */
  void throwIfFailed() throws JsonDecodeException {
    if (firstError != null) {
      throw new JsonDecodeException(firstError);
    }
  }

  /** Skips the current value (and its children). */
  void skip() throws JsonDecodeException {
    try {
      parser.skipChildren();
    } catch (JsonProcessingException e) {
      throw new JsonDecodeException(syntax(e));
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  String fieldName() throws JsonDecodeException {
    try {
      return parser.currentName();
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  /**
   * Index of {@code key} in {@code known}: exact match first, then case-insensitive; -1 if none.
   */
  static int match(final String key, final String[] known) {
    for (int i = 0; i < known.length; i++) {
      if (known[i].equals(key)) {
        return i;
      }
    }
    for (int i = 0; i < known.length; i++) {
      if (known[i].equalsIgnoreCase(key)) {
        return i;
      }
    }
    return -1;
  }

  /** Records {@code json: unknown field "k"} and skips the value. */
  void unknownField(final String key) throws JsonDecodeException {
    typeError("json: unknown field " + quote(key));
    skip();
  }

  /** Go's {@code %q} for the ASCII-ish keys we see; enough for error messages. */
  static String quote(final String s) {
    final StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      final char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\x%02x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  private String kind(final JsonToken t) throws JsonDecodeException {
    return switch (t) {
      case VALUE_STRING -> "string";
      case VALUE_TRUE, VALUE_FALSE -> "bool";
      case START_OBJECT -> "object";
      case START_ARRAY -> "array";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number " + text();
      default -> t.asString() == null ? t.name() : t.asString();
    };
  }

  private String text() throws JsonDecodeException {
    try {
      return parser.getText();
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
  }

  private void mismatch(final JsonToken t, final String field, final String goType)
      throws JsonDecodeException {
    String k = kind(t);
    if (k.startsWith("number") && (goType.equals("string") || goType.equals("bool"))) {
      k = "number";
    }
    typeError(
        "json: cannot unmarshal " + k + " into Go struct field " + field + " of type " + goType);
    skip();
  }

  /** A string field; {@code null} token → {@code null} (caller keeps the zero value). */
  String string(final JsonToken t, final String field) throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_STRING) {
      mismatch(t, field, "string");
      return null;
    }
    return text();
  }

  /** A bool field or pointer; {@code null} token → {@code null}. */
  Boolean bool(final JsonToken t, final String field) throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t == JsonToken.VALUE_TRUE) {
      return Boolean.TRUE;
    }
    if (t == JsonToken.VALUE_FALSE) {
      return Boolean.FALSE;
    }
    mismatch(t, field, "bool");
    return null;
  }

  /**
   * An integer field of Go type {@code goType} within [{@code min}, {@code max}]; {@code null}
   * token or a rejected value → {@code null}. Only integer literals are accepted.
   */
  Long integer(
      final JsonToken t, final String field, final String goType, final long min, final long max)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_NUMBER_INT) {
      mismatch(t, field, goType);
      return null;
    }
    final BigInteger v;
    try {
      v = parser.getBigIntegerValue();
    } catch (IOException e) {
      throw new JsonDecodeException(String.valueOf(e.getMessage()));
    }
    if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
      mismatch(t, field, goType);
      return null;
    }
    return v.longValue();
  }

  /**
   * A float32 field or pointer; {@code null} token → {@code null}; out of float32 range → error.
   */
  Float float32(final JsonToken t, final String field) throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
      mismatch(t, field, "float32");
      return null;
    }
    final String s = text();
    final float f;
    try {
      f = Float.parseFloat(s);
    } catch (NumberFormatException e) {
      mismatch(t, field, "float32");
      return null;
    }
    if (Float.isInfinite(f)) {
      mismatch(t, field, "float32");
      return null;
    }
    return f;
  }

  /** Whether non-whitespace follows the first JSON value. */
  boolean hasTrailingContent() {
    long offset = parser.currentLocation().getByteOffset();
    if (offset < 0) {
      offset = 0;
    }
    for (int i = (int) Math.min(offset, length); i < length; i++) {
      final byte b = body[i];
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    try {
      parser.close();
    } catch (IOException e) {
      // in-memory parser: nothing to release
    }
  }
}
