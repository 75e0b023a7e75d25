package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;
import java.util.Locale;

/**
 * Console log format and level (flags {@code --log-format}, {@code --log-level}): trimmed,
 * case-insensitive, empty = {@code json} / {@code info}; {@code warning} is {@code warn}. Applied
 * to every console appender and the root level of Dropwizard's {@code logging} section.
 */
public final class LogSettings {
  @NotNull private String format = "json";
  @NotNull private String level = "info";

  @JsonProperty
  public String getFormat() {
    return format;
  }

  @JsonProperty
  public void setFormat(final String v) {
    this.format = v;
  }

  @JsonProperty
  public String getLevel() {
    return level;
  }

  @JsonProperty
  public void setLevel(final String v) {
    this.level = v;
  }

  /**
   * {@code json} or {@code text}.
   *
   * @throws IllegalArgumentException naming the flag for anything else
   */
  public static String parseFormat(final String raw) {
    final String v = raw == null ? "" : raw.strip().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "", "json" -> "json";
      case "text" -> "text";
      default ->
          throw new IllegalArgumentException(
              "invalid --log-format \"" + raw + "\": must be json or text");
    };
  }

  /**
   * The logback level name ({@code DEBUG}, {@code INFO}, {@code WARN}, {@code ERROR}).
   *
   * @throws IllegalArgumentException naming the flag for anything else
   */
  public static String parseLevel(final String raw) {
    final String v = raw == null ? "" : raw.strip().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "debug" -> "DEBUG";
      case "", "info" -> "INFO";
      case "warn", "warning" -> "WARN";
      case "error" -> "ERROR";
      default ->
          throw new IllegalArgumentException(
              "invalid --log-level \"" + raw + "\": must be debug, info, warn or error");
    };
  }
}
