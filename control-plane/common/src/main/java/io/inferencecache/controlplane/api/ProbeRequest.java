package io.inferencecache.controlplane.api;

import com.fasterxml.jackson.core.JsonToken;

/**
 * A {@code /probe} request body (docs/behaviour.md#probe).
 *
 * @param backend the backend under test (echoed; names the probe replica {@code __probe-<backend>})
 * @param model the model id
 * @param hashScheme the hash scheme
 * @param backendType optional; {@code "LMCache"} or empty runs the T2 stage when a prober is wired
 */
public record ProbeRequest(String backend, String model, String hashScheme, String backendType) {
  private static final String[] FIELDS = {"backend", "model", "hashScheme", "backendType"};

  /** The 400 text when a required field is empty. */
  public static final String MISSING_FIELDS =
      "probe request missing required field (backend, model, hashScheme)";

  /** The 400 text when something follows the first JSON value. */
  public static final String TRAILING_CONTENT =
      "probe request body has trailing content after the first JSON value";

  /** Whether the three required fields are non-empty. */
  public boolean complete() {
    return !backend.isEmpty() && !model.isEmpty() && !hashScheme.isEmpty();
  }

  /**
   * Decodes {@code body[0, length)}.
   *
   * @throws JsonDecodeException with the text that follows {@code decode probe request: }
   * @throws TrailingContentException when a valid first value is followed by more content
   */
  public static ProbeRequest decode(final byte[] body, final int length)
      throws JsonDecodeException, TrailingContentException {
    final ProbeRequest request;
    try (StrictJson json = new StrictJson(body, length)) {
      final JsonToken t = json.first();
      String backend = "";
      String model = "";
      String scheme = "";
      String type = "";
      if (t == JsonToken.START_OBJECT) {
        for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
          final String key = json.fieldName();
          final JsonToken v = json.next();
          final int i = StrictJson.match(key, FIELDS);
          if (i < 0) {
            json.unknownField(key);
            continue;
          }
          final String s = json.string(v, "ProbeRequest." + FIELDS[i]);
          if (s == null) {
            continue;
          }
          switch (i) {
            case 0 -> backend = s;
            case 1 -> model = s;
            case 2 -> scheme = s;
            default -> type = s;
          }
        }
        json.throwIfFailed();
      } else if (t != JsonToken.VALUE_NULL) {
        json.skip();
        throw new JsonDecodeException(
            "json: cannot unmarshal "
                + (t == JsonToken.START_ARRAY ? "array" : "value")
                + " into Go value of type ProbeRequest");
      }
      if (json.hasTrailingContent()) {
        throw new TrailingContentException();
      }
      request = new ProbeRequest(backend, model, scheme, type);
    }
    return request;
  }

  /** A request body with content after its first JSON value. */
  public static final class TrailingContentException extends Exception {
    private static final long serialVersionUID = 1L;

    public TrailingContentException() {
      super(TRAILING_CONTENT);
    }
  }
}
