package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;
import java.util.Map;

/** One tenant of the shared index ({@code cachetenants}, short name ct). */
public final class CacheTenant extends CustomResource<CacheTenant.Spec, CacheTenant.Status> {
  public static final CrdKind<CacheTenant, CacheTenantList> CRD =
      new CrdKind<>(CacheTenant.class, CacheTenantList.class, "CacheTenant", "cachetenants", true);

  public CacheTenant() {
    super("CacheTenant");
  }

  /** The tenant and its budget. */
  public static class Spec {
    public String tenantID;
    public Quota quota;
    public IsolationMode isolationMode;

    /** Reserved; the schema requires it to be empty. */
    public Map<String, Object> crypto;
  }

  /** Index budget. */
  public static class Quota {
    public Long maxIndexEntries;
  }

  /** How the tenant shares the index. */
  public enum IsolationMode {
    @SerializedName("Fairness")
    FAIRNESS
  }

  /** Projection of the tenant's share of the latest server snapshot. */
  public static class Status extends ConditionedStatus {
    public Long indexEntries;
  }
}
