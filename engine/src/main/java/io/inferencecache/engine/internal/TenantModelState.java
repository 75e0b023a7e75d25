package io.inferencecache.engine.internal;

import java.util.Arrays;

/**
 * A (tenant, model): its distinct prefix keys, its stats rows and the partitions and scopes under
 * it. Written by the index writer; read lock-free.
 */
public final class TenantModelState {
  public final int id;
  public final int tenant;
  public final int model;
  public volatile long prefixes;
  public volatile StatsTable stats = StatsTable.EMPTY;
  private volatile int[] partitions = new int[0];
  private volatile int[] scopes = new int[0];

  public TenantModelState(final int id, final int tenant, final int model) {
    this.id = id;
    this.tenant = tenant;
    this.model = model;
  }

  public int[] partitions() {
    return partitions;
  }

  public int[] scopes() {
    return scopes;
  }

  /** Writer. */
  public void addPartition(final int partition) {
    final int[] p = Arrays.copyOf(partitions, partitions.length + 1);
    p[partitions.length] = partition;
    partitions = p;
  }

  /** Writer. */
  public void addScope(final int scope) {
    final int[] s = Arrays.copyOf(scopes, scopes.length + 1);
    s[scopes.length] = scope;
    scopes = s;
  }
}
