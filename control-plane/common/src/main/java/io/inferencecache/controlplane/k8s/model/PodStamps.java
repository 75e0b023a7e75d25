package io.inferencecache.controlplane.k8s.model;

/**
 * The pod annotations of engine-pod injection: the pod webhook writes the stamps, the CacheBackend
 * reconciler and {@code doctor} read them. A pod is stamped for exactly one CacheBackend.
 */
public final class PodStamps {
  /** {@code namespace/name} of the CacheBackend that injected the pod. */
  public static final String INJECTED_BY = "inferencecache.io/injected-by";

  /** UID of that CacheBackend (a recreated backend of the same name does not own old pods). */
  public static final String INJECTED_BY_UID = "inferencecache.io/injected-by-uid";

  /** The backend's {@code metadata.generation} the pod was injected for. */
  public static final String INJECTED_GENERATION = "inferencecache.io/injected-generation";

  /** Why the webhook skipped the pod (written instead of the stamps). */
  public static final String INJECT_SKIPPED = "inferencecache.io/inject-skipped";

  /** The user's opt-out of injection. */
  public static final String SKIP_INJECT = "inferencecache.io/skip-inject";

  private PodStamps() {}
}
