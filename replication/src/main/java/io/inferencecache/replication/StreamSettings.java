package io.inferencecache.replication;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the replication stream lives: the broker URL(s), the stream name (its subjects are {@code
 * <stream>.>}) and how long one publish may wait for the broker's acknowledgement.
 *
 * @param natsUrl comma-separated {@code nats://host:port} URLs ({@code tls://} for TLS); empty =
 *     replication off
 * @param stream stream name, letters, digits, {@code -} and {@code _} only (it is also the subject
 *     prefix)
 * @param publishTimeout bound of one publish (positive)
 */
public record StreamSettings(String natsUrl, String stream, Duration publishTimeout) {
  /** Default stream name. */
  public static final String STREAM_DEFAULT = "inference-cache";

  /** Default publish bound. */
  public static final Duration PUBLISH_TIMEOUT_DEFAULT = Duration.ofSeconds(2);

  private static final Pattern STREAM_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  public StreamSettings {
    Objects.requireNonNull(natsUrl, "natsUrl");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(publishTimeout, "publishTimeout");
  }

  /** Whether replication is on (a URL is set). */
  public boolean enabled() {
    return !natsUrl.isBlank();
  }

  /**
   * What is wrong with these settings, or {@code null}: a stream name outside {@code
   * [A-Za-z0-9_-]{1,64}}, a non-positive timeout. URLs are the client's to check when it connects
   * ({@code host:port} without a scheme means {@code nats://}).
   */
  public String problem() {
    if (!STREAM_NAME.matcher(stream).matches()) {
      return "stream name \"" + stream + "\" must be 1-64 of A-Z a-z 0-9 - _";
    }
    if (publishTimeout.isZero() || publishTimeout.isNegative()) {
      return "publish timeout must be positive, got " + publishTimeout;
    }
    return null;
  }

  /** The stream's subject filter, {@code <stream>.>}. */
  public String subjects() {
    return stream + ".>";
  }
}
