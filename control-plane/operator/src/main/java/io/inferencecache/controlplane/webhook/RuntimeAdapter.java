package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.CacheType;
import io.inferencecache.controlplane.k8s.model.CacheBackend.EngineRuntime;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the webhooks know about one (engine runtime, cache type) pair: the engine container's name,
 * its default HTTP port (the metrics endpoint the sidecar scrapes), the subscriber's hash scheme,
 * and the engine flags and environment variables the injection owns ({@code engineOverrides} may
 * not name them).
 *
 * @param runtimeId lower-case runtime id, also the subscriber's {@code --hash-scheme}
 * @param type the cache type
 * @param engineContainer name of the engine container in the pod
 * @param defaultPort the engine's HTTP port when its {@code --port} flag is absent
 * @param reservedArgs leading flag tokens owned by the injection
 * @param reservedEnv environment variable names owned by the injection
 */
public record RuntimeAdapter(
    String runtimeId,
    CacheType type,
    String engineContainer,
    int defaultPort,
    Set<String> reservedArgs,
    Set<String> reservedEnv) {

  private static final List<RuntimeAdapter> ALL =
      List.of(
          new RuntimeAdapter(
              "vllm",
              CacheType.LMCACHE,
              "vllm",
              8000,
              Set.of("--kv-transfer-config", "--disable-hybrid-kv-cache-manager"),
              Set.of("PYTHONHASHSEED", "INFERENCECACHE_FAIL_OPEN")),
          new RuntimeAdapter(
              "sglang",
              CacheType.LMCACHE,
              "sglang",
              30000,
              Set.of("--enable-lmcache", "--lmcache-config-file", "--enable-metrics"),
              Set.of("LMCACHE_USE_EXPERIMENTAL", "INFERENCECACHE_FAIL_OPEN")),
          new RuntimeAdapter(
              "sglang",
              CacheType.SGLANG_HICACHE,
              "sglang",
              30000,
              Set.of(
                  "--enable-hierarchical-cache",
                  "--hicache-size",
                  "--hicache-ratio",
                  "--hicache-write-policy",
                  "--hicache-io-backend",
                  "--hicache-mem-layout",
                  "--enable-metrics"),
              Set.of()));

  /** The supported pairs, for messages: {@code VLLM/LMCache, SGLang/LMCache, ...}. */
  public static final String SUPPORTED = "VLLM/LMCache, SGLang/LMCache, SGLang/SGLangHiCache";

  /** The adapter of {@code backend}'s effective runtime and type, if there is one. */
  public static Optional<RuntimeAdapter> select(final CacheBackend.Spec spec) {
    if (spec == null || spec.runtime == null) {
      return Optional.empty();
    }
    final String id = runtimeId(spec.runtime);
    final CacheType type = spec.type == null ? CacheType.LMCACHE : spec.type;
    return ALL.stream().filter(a -> a.runtimeId.equals(id) && a.type == type).findFirst();
  }

  /** {@code vllm} or {@code sglang}. */
  public static String runtimeId(final EngineRuntime runtime) {
    return runtime == EngineRuntime.SGLANG ? "sglang" : "vllm";
  }

  /** The flag token of an argument: {@code --a=b} → {@code --a}; a non-flag → itself. */
  public static String flagToken(final String arg) {
    final int eq = arg.indexOf('=');
    return arg.startsWith("-") && eq > 0 ? arg.substring(0, eq) : arg;
  }
}
