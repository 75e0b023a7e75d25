package io.inferencecache.subscriber.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --lora-adapter-names} grammar: engine LoRA id → adapter name. */
final class LoraAdapterNames {
  private LoraAdapterNames() {}

  /**
   * Parses {@code --lora-adapter-names}: comma-separated {@code id=name}, blanks around tokens and
   * blank entries (a trailing comma) ignored.
   *
   * @throws InvalidConfigException on a pair without {@code =}, a non-int64 id, an empty name or a
   *     duplicate id
   */
  static Map<Long, String> parse(final String value) {
    final Map<Long, String> out = new LinkedHashMap<>();
    if (value == null) {
      return Map.of();
    }
    for (final String raw : value.split(",", -1)) {
      final String pair = raw.strip();
      if (pair.isEmpty()) {
        continue;
      }
      final int eq = pair.indexOf('=');
      if (eq < 0) {
        throw new InvalidConfigException("--lora-adapter-names: \"" + pair + "\" is not id=name");
      }
      final long id;
      try {
        id = Long.parseLong(pair.substring(0, eq).strip());
      } catch (final NumberFormatException e) {
        throw new InvalidConfigException(
            "--lora-adapter-names: \"" + pair + "\" has a non-integer lora id");
      }
      final String name = pair.substring(eq + 1).strip();
      if (name.isEmpty()) {
        throw new InvalidConfigException(
            "--lora-adapter-names: \"" + pair + "\" has an empty adapter name");
      }
      if (out.putIfAbsent(id, name) != null) {
        throw new InvalidConfigException(
            "--lora-adapter-names: lora id " + id + " mapped more than once");
      }
    }
    return Collections.unmodifiableMap(out);
  }
}
