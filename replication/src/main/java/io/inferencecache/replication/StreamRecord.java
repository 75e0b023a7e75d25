package io.inferencecache.replication;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The wire format of one stream message. Subject: one per engine replica ({@link #subject}), so the
 * stream keeps each replica's messages in order. Header {@value #KIND_HEADER} says what the body (a
 * protobuf message) is:
 *
 * <ul>
 *   <li>{@link Kind#UPDATE}: a {@code CacheStateUpdate}, applied as a ReportCacheState message;
 *   <li>{@link Kind#EVENT}: a {@code CacheEvent}, applied as a PublishEvent call;
 *   <li>{@link Kind#STATE}: a {@code CacheStateUpdate} that starts the replica's full state: the
 *       reader clears the replica's entries, then ingests it. It carries {@code Nats-Rollup: sub},
 *       so the broker drops every earlier message of the subject; a full state larger than one
 *       message continues as {@link Kind#UPDATE} messages after it.
 * </ul>
 */
public final class StreamRecord {
  /** The header naming the body's kind. */
  public static final String KIND_HEADER = "Ic-Kind";

  /** What a message body is. */
  public enum Kind {
    UPDATE("update"),
    EVENT("event"),
    STATE("state");

    private final String wire;

    Kind(final String wire) {
      this.wire = wire;
    }

    /** The header value. */
    public String wire() {
      return wire;
    }

    /** The kind of a header value, or {@code null} for an unknown or missing one. */
    public static Kind of(final String wire) {
      if (wire == null) {
        return null;
      }
      for (Kind k : values()) {
        if (k.wire.equals(wire)) {
          return k;
        }
      }
      return null;
    }
  }

  private StreamRecord() {}

  /**
   * The subject of one engine replica's messages: {@code <stream>.t<tenant>.m<model>.r<replica>},
   * each id as unpadded base64url of its UTF-8 bytes behind a one-letter tag (so an empty tenant is
   * still a token). A replica group can filter one (tenant, model) with {@code
   * <stream>.t<tenant>.m<model>.*}.
   */
  public static String subject(
      final String stream, final String tenant, final String model, final String replica) {
    return stream + ".t" + b64(tenant) + ".m" + b64(model) + ".r" + b64(replica);
  }

  private static String b64(final String id) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(id.getBytes(StandardCharsets.UTF_8));
  }
}
