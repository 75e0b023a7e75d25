package io.inferencecache.controlplane.k8s.model;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * Mirror of the server's index summary ({@code cacheindices}, cluster-scoped, short name ci). It
 * has no conditions and no observed generation.
 */
public final class CacheIndexResource
    extends CustomResource<CacheIndexResource.Spec, CacheIndexResource.Status> {
  public static final CrdKind<CacheIndexResource, CacheIndexResourceList> CRD =
      new CrdKind<>(
          CacheIndexResource.class,
          CacheIndexResourceList.class,
          "CacheIndex",
          "cacheindices",
          false);

  /** Name of the one CacheIndex the controller keeps. */
  public static final String CLUSTER_DEFAULT = "cluster-default";

  public CacheIndexResource() {
    super("CacheIndex");
  }

  /** Empty: the kind carries only status. */
  public static class Spec {}

  /** The latest snapshot. */
  public static class Status {
    public List<Replica> replicas;
    public List<Tenant> tenants;
    public Prefixes prefixes;
    public String observedServer;
    public OffsetDateTime lastUpdated;
  }

  /** One engine replica. */
  public static class Replica {
    public String id;
    public String tenant;
    public Long cacheMemoryBytes;
    public String hitRate;
    public String pressure;
    public OffsetDateTime lastUpdate;
  }

  /** One tenant bucket; id "" is the untenanted one. */
  public static class Tenant {
    public String id;
    public Long indexEntries;
    public String hitRate;

    /** Deprecated, always 0, always rendered. */
    public long memoryUsed;
  }

  /** Prefix counts. */
  public static class Prefixes {
    public PrefixSummary summary;
  }

  /** Prefix totals (both always rendered). */
  public static class PrefixSummary {
    public long total;
    public long hot;
  }
}
