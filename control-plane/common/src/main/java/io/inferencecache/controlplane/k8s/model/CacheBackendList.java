package io.inferencecache.controlplane.k8s.model;

/** A list of {@link CacheBackend}. */
public final class CacheBackendList extends CustomResourceList<CacheBackend> {
  public CacheBackendList() {
    super("CacheBackendList");
  }
}
