package io.inferencecache.controlplane.k8s.model;

/** A list of {@link CachePolicy}. */
public final class CachePolicyList extends CustomResourceList<CachePolicy> {
  public CachePolicyList() {
    super("CachePolicyList");
  }
}
