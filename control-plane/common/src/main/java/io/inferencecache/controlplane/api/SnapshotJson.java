package io.inferencecache.controlplane.api;

import io.inferencecache.engine.IndexSnapshot;
import java.util.List;

/**
 * The {@code /snapshot} body (docs/behaviour.md#snapshot): the wire DTO written key by key so that
 * the key order, the omission rules ({@code tenant}, {@code statsReported}, {@code t2HitTokens},
 * {@code t2QueryTokens}, {@code hitRateReported}), {@code null} for an empty list, float32 and time
 * formatting all match the upstream Go encoder byte for byte, trailing newline included. Stateless
 * and thread-safe.
 */
public final class SnapshotJson {
  /** Top-level keys, in order (frozen). */
  public static final List<String> TOP_LEVEL_KEYS =
      List.of("replicas", "tenants", "totalPrefixes", "hotPrefixes");

  /** Replica keys, in order, when every optional one is present (frozen). */
  public static final List<String> REPLICA_KEYS =
      List.of(
          "replicaId",
          "tenant",
          "cacheMemoryBytes",
          "hitRate",
          "pressure",
          "lastUpdate",
          "prefixCount",
          "lastEventAt",
          "statsReported",
          "t2HitTokens",
          "t2QueryTokens");

  /** Tenant keys, in order, when every optional one is present (frozen). */
  public static final List<String> TENANT_KEYS =
      List.of("tenantId", "indexEntries", "hitRate", "hitRateReported", "memoryUsed");

  private SnapshotJson() {}

  /** The body for {@code snapshot}, ending with a newline. */
  public static String write(final IndexSnapshot snapshot) {
    final StringBuilder out = new StringBuilder(256);
    out.append("{\"replicas\":");
    if (snapshot.replicas() == null || snapshot.replicas().isEmpty()) {
      out.append("null");
    } else {
      out.append('[');
      boolean first = true;
      for (final IndexSnapshot.ReplicaRow r : snapshot.replicas()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        replica(out, r);
      }
      out.append(']');
    }
    out.append(",\"tenants\":");
    if (snapshot.tenants() == null || snapshot.tenants().isEmpty()) {
      out.append("null");
    } else {
      out.append('[');
      boolean first = true;
      for (final IndexSnapshot.TenantRow t : snapshot.tenants()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        tenant(out, t);
      }
      out.append(']');
    }
    out.append(",\"totalPrefixes\":").append(snapshot.totalPrefixes());
    out.append(",\"hotPrefixes\":").append(snapshot.hotPrefixes());
    return out.append("}\n").toString();
  }

  private static void replica(final StringBuilder out, final IndexSnapshot.ReplicaRow r) {
    out.append("{\"replicaId\":");
    GoJson.string(out, nullToEmpty(r.replicaId()));
    if (r.tenant() != null && !r.tenant().isEmpty()) {
      out.append(",\"tenant\":");
      GoJson.string(out, r.tenant());
    }
    out.append(",\"cacheMemoryBytes\":").append(r.cacheMemoryBytes());
    out.append(",\"hitRate\":");
    GoJson.float32(out, r.hitRate());
    out.append(",\"pressure\":");
    GoJson.float32(out, r.pressure());
    out.append(",\"lastUpdate\":");
    GoJson.time(out, r.lastUpdateNanos());
    out.append(",\"prefixCount\":").append(r.prefixCount());
    out.append(",\"lastEventAt\":");
    GoJson.time(out, r.lastEventAtNanos());
    if (r.statsReported()) {
      out.append(",\"statsReported\":true");
    }
    if (r.t2HitTokens() != 0) {
      out.append(",\"t2HitTokens\":").append(r.t2HitTokens());
    }
    if (r.t2QueryTokens() != 0) {
      out.append(",\"t2QueryTokens\":").append(r.t2QueryTokens());
    }
    out.append('}');
  }

  private static void tenant(final StringBuilder out, final IndexSnapshot.TenantRow t) {
    out.append("{\"tenantId\":");
    GoJson.string(out, nullToEmpty(t.tenantId()));
    out.append(",\"indexEntries\":").append(t.indexEntries());
    out.append(",\"hitRate\":");
    GoJson.float32(out, t.hitRate());
    if (t.hitRateReported()) {
      out.append(",\"hitRateReported\":true");
    }
    out.append(",\"memoryUsed\":0}");
  }

  private static String nullToEmpty(final String s) {
    return s == null ? "" : s;
  }
}
