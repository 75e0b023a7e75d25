package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The status of the CacheIndex {@code cluster-default}: a pure projection of one {@link
 * ServerSnapshot}, its typed form ({@link #toStatus}), and the read-back of a stored status ({@link
 * #from}) for the write-on-change comparison (which ignores {@code lastUpdated} and every {@code
 * replicas[].lastUpdate}).
 *
 * @param replicas stats-reporting replicas only, one row per id (the lexicographically larger
 *     tenant wins), sorted by id
 * @param tenants in the snapshot's order
 * @param lastUpdated the time of the last change (whole-second RFC 3339 UTC)
 */
public record CacheIndexStatus(
    List<ReplicaRow> replicas,
    List<TenantRow> tenants,
    long total,
    long hot,
    String observedServer,
    String lastUpdated) {

  /** The singleton's name. */
  public static final String NAME = CacheIndexResource.CLUSTER_DEFAULT;

  public CacheIndexStatus {
    replicas = List.copyOf(replicas);
    tenants = List.copyOf(tenants);
  }

  /** {@code cacheMemoryBytes} is {@code null} when 0 (omitted). */
  public record ReplicaRow(
      String id,
      String tenant,
      Long cacheMemoryBytes,
      String hitRate,
      String pressure,
      String lastUpdate) {}

  /** {@code hitRate} is {@code null} unless reported or non-zero; memoryUsed is always 0. */
  public record TenantRow(String id, Long indexEntries, String hitRate) {}

  /** The status for {@code snapshot} read from {@code snapshotUrl} at {@code now}. */
  public static CacheIndexStatus project(
      final ServerSnapshot snapshot, final String snapshotUrl, final Instant now) {
    final Map<String, ServerSnapshot.Replica> byId = new LinkedHashMap<>();
    for (final ServerSnapshot.Replica r : snapshot.replicas()) {
      if (r.lastUpdate() == null) {
        continue; // prefix-only replica: no stats row
      }
      byId.merge(r.replicaId(), r, (a, b) -> b.tenant().compareTo(a.tenant()) > 0 ? b : a);
    }
    final List<ReplicaRow> replicas = new ArrayList<>();
    for (final ServerSnapshot.Replica r : byId.values()) {
      replicas.add(
          new ReplicaRow(
              r.replicaId(),
              r.tenant().isEmpty() ? null : r.tenant(),
              r.cacheMemoryBytes() == 0 ? null : r.cacheMemoryBytes(),
              CrText.rate(r.hitRate()),
              CrText.rate(r.pressure()),
              CrText.time(r.lastUpdate())));
    }
    replicas.sort(Comparator.comparing(ReplicaRow::id));
    final List<TenantRow> tenants = new ArrayList<>();
    for (final ServerSnapshot.Tenant t : snapshot.tenants()) {
      final boolean rated = t.hitRateReported() || t.hitRate() != 0;
      tenants.add(
          new TenantRow(t.tenantId(), t.indexEntries(), rated ? CrText.rate(t.hitRate()) : null));
    }
    return new CacheIndexStatus(
        replicas,
        tenants,
        snapshot.totalPrefixes(),
        snapshot.hotPrefixes(),
        snapshotUrl,
        CrText.time(now));
  }

  /** Whether this and {@code other} differ in anything but the timestamps. */
  public boolean sameIgnoringTimes(final CacheIndexStatus other) {
    return other != null && withoutTimes().equals(other.withoutTimes());
  }

  private CacheIndexStatus withoutTimes() {
    final List<ReplicaRow> rows = new ArrayList<>();
    for (final ReplicaRow r : replicas) {
      rows.add(
          new ReplicaRow(
              r.id(), r.tenant(), r.cacheMemoryBytes(), r.hitRate(), r.pressure(), null));
    }
    return new CacheIndexStatus(rows, tenants, total, hot, observedServer, null);
  }

  /**
   * The typed status to write; empty lists are left out ({@link CrText#tree} puts it on the wire).
   */
  public CacheIndexResource.Status toStatus() {
    final CacheIndexResource.Status status = new CacheIndexResource.Status();
    if (!replicas.isEmpty()) {
      status.replicas = new ArrayList<>();
      for (final ReplicaRow r : replicas) {
        final CacheIndexResource.Replica row = new CacheIndexResource.Replica();
        row.id = r.id();
        row.tenant = r.tenant();
        row.cacheMemoryBytes = r.cacheMemoryBytes();
        row.hitRate = r.hitRate();
        row.pressure = r.pressure();
        row.lastUpdate = parseTime(r.lastUpdate());
        status.replicas.add(row);
      }
    }
    if (!tenants.isEmpty()) {
      status.tenants = new ArrayList<>();
      for (final TenantRow t : tenants) {
        final CacheIndexResource.Tenant row = new CacheIndexResource.Tenant();
        row.id = t.id();
        row.indexEntries = t.indexEntries();
        row.hitRate = t.hitRate();
        status.tenants.add(row);
      }
    }
    status.prefixes = new CacheIndexResource.Prefixes();
    status.prefixes.summary = new CacheIndexResource.PrefixSummary();
    status.prefixes.summary.total = total;
    status.prefixes.summary.hot = hot;
    status.observedServer = observedServer;
    status.lastUpdated = parseTime(lastUpdated);
    return status;
  }

  /** A stored status read back; no status (or an empty one) reads as {@code null}. */
  public static CacheIndexStatus from(final CacheIndexResource.Status status) {
    if (status == null
        || (status.replicas == null
            && status.tenants == null
            && status.prefixes == null
            && status.observedServer == null
            && status.lastUpdated == null)) {
      return null;
    }
    final List<ReplicaRow> replicas = new ArrayList<>();
    if (status.replicas != null) {
      for (final CacheIndexResource.Replica r : status.replicas) {
        replicas.add(
            new ReplicaRow(
                r.id,
                r.tenant,
                r.cacheMemoryBytes,
                r.hitRate,
                r.pressure,
                CrText.time(r.lastUpdate)));
      }
    }
    final List<TenantRow> tenants = new ArrayList<>();
    if (status.tenants != null) {
      for (final CacheIndexResource.Tenant t : status.tenants) {
        tenants.add(new TenantRow(t.id, t.indexEntries, t.hitRate));
      }
    }
    final CacheIndexResource.PrefixSummary summary =
        status.prefixes == null ? null : status.prefixes.summary;
    return new CacheIndexStatus(
        replicas,
        tenants,
        summary == null ? 0 : summary.total,
        summary == null ? 0 : summary.hot,
        status.observedServer,
        CrText.time(status.lastUpdated));
  }

  private static OffsetDateTime parseTime(final String text) {
    return text == null ? null : OffsetDateTime.parse(text);
  }
}
