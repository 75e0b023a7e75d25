package io.inferencecache.controlplane.k8s.model;

/** A list of {@link CacheTenant}. */
public final class CacheTenantList extends CustomResourceList<CacheTenant> {
  public CacheTenantList() {
    super("CacheTenantList");
  }
}
