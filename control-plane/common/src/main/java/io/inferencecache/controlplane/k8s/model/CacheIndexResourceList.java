package io.inferencecache.controlplane.k8s.model;

/** A list of {@link CacheIndex}. */
public final class CacheIndexResourceList extends CustomResourceList<CacheIndexResource> {
  public CacheIndexResourceList() {
    super("CacheIndexList");
  }
}
