package io.inferencecache.subscriber.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which vLLM cache-usage gauge feeds {@code cache_memory_bytes} ({@code --cache-tier}).
 *
 * <p>{@link #AUTO} takes {@code vllm:kv_cache_usage_perc} when present, else max of the legacy
 * {@code vllm:gpu_cache_usage_perc} / {@code vllm:cpu_cache_usage_perc}; the others pin one gauge.
 */
public enum CacheTier {
  /** kv, else max(gpu, cpu). */
  AUTO("auto"),
  /** {@code vllm:kv_cache_usage_perc} (vLLM 0.21+). */
  KV("kv"),
  /** legacy {@code vllm:gpu_cache_usage_perc}. */
  GPU("gpu"),
  /** legacy {@code vllm:cpu_cache_usage_perc}. */
  CPU("cpu");

  private final String flag;

  CacheTier(final String flag) {
    this.flag = flag;
  }

  /** The flag value, e.g. {@code "auto"}. */
  public String flag() {
    return flag;
  }

  /**
   * Parses a flag value (exact, lower case).
   *
   * @throws InvalidConfigException for anything else
   */
  public static CacheTier fromFlag(final String value) {
    for (final CacheTier t : values()) {
      if (t.flag.equals(value)) {
        return t;
      }
    }
    throw new InvalidConfigException(
        "--cache-tier: invalid value \"" + value + "\" (valid: " + validNames() + ")");
  }

  /** The accepted flag values, in fallback order, comma-separated. */
  public static String validNames() {
    return Arrays.stream(values()).map(CacheTier::flag).collect(Collectors.joining(", "));
  }
}
