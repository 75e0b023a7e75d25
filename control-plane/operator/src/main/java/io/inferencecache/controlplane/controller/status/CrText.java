package io.inferencecache.controlplane.controller.status;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import io.inferencecache.controlplane.api.GoJson;
import io.kubernetes.client.openapi.JSON;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * How custom-resource status writes rates and times. Every {@code metav1.Time} the controller
 * writes ({@code lastTransitionTime}, {@code firstAvailableAt}, {@code firstKVEventObservedAt},
 * {@code lastEventAt}, {@code lastUpdated}, {@code lastUpdate}) goes through {@link #time}: RFC
 * 3339 in UTC with whole seconds, {@code 2026-12-05T23:44:39Z}, the form the API server itself
 * writes for such fields. A custom resource's API server stores the JSON it is sent, so a typed
 * object is sent as {@link #tree} (the client's own serializer writes six fraction digits, the
 * {@code metav1.MicroTime} form, which only Event and Lease fields use).
 */
public final class CrText {
  private static final Gson GSON =
      JSON.getGson().newBuilder().registerTypeAdapter(OffsetDateTime.class, new Time()).create();

  private CrText() {}

  /**
   * A rate as the shortest decimal that reads back as the same float32, in plain notation: {@code
   * "0"}, {@code "1"}, {@code "0.25"}, {@code "0.0000001"} — never an exponent, never {@code ".0"}.
   */
  public static String rate(final double value) {
    final float f = (float) value;
    if (Float.isNaN(f) || Float.isInfinite(f)) {
      throw new IllegalArgumentException("rate is not finite: " + value);
    }
    if (f == 0.0f) {
      return "0";
    }
    return GoJson.shortestDecimal(f).toPlainString();
  }

  /**
   * A time as whole-second RFC 3339 UTC ({@code 2026-12-01T11:03:18Z}), the fraction dropped;
   * {@code null} stays.
   */
  public static String time(final Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** {@link #time(Instant)} of {@code t}'s instant, whatever its offset; {@code null} stays. */
  public static String time(final OffsetDateTime t) {
    return t == null ? null : time(t.toInstant());
  }

  /**
   * {@code resource} (a typed custom resource or a part of one) as the JSON to send: the client's
   * serialization, except that every {@link OffsetDateTime} is written by {@link #time}.
   */
  public static JsonElement tree(final Object resource) {
    return GSON.toJsonTree(resource);
  }

  /**
   * A deep copy of {@code resource} through the client's own serialization (times keep their
   * fraction), so that a cached object is never changed in place.
   */
  public static <T> T copy(final T resource, final Class<T> type) {
    return JSON.deserialize(JSON.serialize(resource), type);
  }

  /** {@link OffsetDateTime} as {@link #time}; reads any RFC 3339 time, with or without fraction. */
  private static final class Time extends TypeAdapter<OffsetDateTime> {
    @Override
    public void write(final JsonWriter out, final OffsetDateTime value) throws IOException {
      if (value == null) {
        out.nullValue();
      } else {
        out.value(time(value));
      }
    }

    @Override
    public OffsetDateTime read(final JsonReader in) throws IOException {
      if (in.peek() == JsonToken.NULL) {
        in.nextNull();
        return null;
      }
      final String text = in.nextString();
      try {
        return OffsetDateTime.parse(text);
      } catch (DateTimeParseException e) {
        throw new IOException("not an RFC 3339 time: " + text, e);
      }
    }
  }
}
