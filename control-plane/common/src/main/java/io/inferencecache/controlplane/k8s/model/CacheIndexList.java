package io.inferencecache.controlplane.k8s.model;

/** A list of {@link CacheIndex}. */
public final class CacheIndexList extends CustomResourceList<CacheIndex> {
  public CacheIndexList() {
    super("CacheIndexList");
  }
}
