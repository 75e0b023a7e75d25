package io.inferencecache.controlplane.controller;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The status of the CacheIndex {@code cluster-default}: a pure projection of one {@link
 * ServerSnapshot}, its JSON form, and the read-back of a stored status for the write-on-change
 * comparison (which ignores {@code lastUpdated} and every {@code replicas[].lastUpdate}).
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
  public static final String NAME = "cluster-default";

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

  /** The {@code status} object as written to the API server. */
  public JsonObject toJson() {
    final JsonObject status = new JsonObject();
    if (!replicas.isEmpty()) {
      final JsonArray rows = new JsonArray();
      for (final ReplicaRow r : replicas) {
        final JsonObject row = new JsonObject();
        row.addProperty("id", r.id());
        putIfSet(row, "tenant", r.tenant());
        if (r.cacheMemoryBytes() != null) {
          row.addProperty("cacheMemoryBytes", r.cacheMemoryBytes());
        }
        putIfSet(row, "hitRate", r.hitRate());
        putIfSet(row, "pressure", r.pressure());
        putIfSet(row, "lastUpdate", r.lastUpdate());
        rows.add(row);
      }
      status.add("replicas", rows);
    }
    if (!tenants.isEmpty()) {
      final JsonArray rows = new JsonArray();
      for (final TenantRow t : tenants) {
        final JsonObject row = new JsonObject();
        row.addProperty("id", t.id());
        if (t.indexEntries() != null) {
          row.addProperty("indexEntries", t.indexEntries());
        }
        putIfSet(row, "hitRate", t.hitRate());
        row.addProperty("memoryUsed", 0);
        rows.add(row);
      }
      status.add("tenants", rows);
    }
    final JsonObject summary = new JsonObject();
    summary.addProperty("total", total);
    summary.addProperty("hot", hot);
    final JsonObject prefixes = new JsonObject();
    prefixes.add("summary", summary);
    status.add("prefixes", prefixes);
    putIfSet(status, "observedServer", observedServer);
    putIfSet(status, "lastUpdated", lastUpdated);
    return status;
  }

  /** A stored {@code status} read back; {@code null} (no status yet) reads as {@code null}. */
  public static CacheIndexStatus fromJson(final JsonObject status) {
    if (status == null || status.size() == 0) {
      return null;
    }
    final List<ReplicaRow> replicas = new ArrayList<>();
    for (final JsonObject r : objects(status.get("replicas"))) {
      replicas.add(
          new ReplicaRow(
              Objects.string(r, "id"),
              Objects.string(r, "tenant"),
              Objects.integer(r, "cacheMemoryBytes"),
              Objects.string(r, "hitRate"),
              Objects.string(r, "pressure"),
              Objects.string(r, "lastUpdate")));
    }
    final List<TenantRow> tenants = new ArrayList<>();
    for (final JsonObject t : objects(status.get("tenants"))) {
      tenants.add(
          new TenantRow(
              Objects.string(t, "id"),
              Objects.integer(t, "indexEntries"),
              Objects.string(t, "hitRate")));
    }
    final JsonObject summary = Objects.object(Objects.object(status, "prefixes"), "summary");
    final Long total = Objects.integer(summary, "total");
    final Long hot = Objects.integer(summary, "hot");
    return new CacheIndexStatus(
        replicas,
        tenants,
        total == null ? 0 : total,
        hot == null ? 0 : hot,
        Objects.string(status, "observedServer"),
        Objects.string(status, "lastUpdated"));
  }

  static List<JsonObject> objects(final JsonElement e) {
    final List<JsonObject> out = new ArrayList<>();
    if (e != null && e.isJsonArray()) {
      for (final JsonElement x : e.getAsJsonArray()) {
        if (x.isJsonObject()) {
          out.add(x.getAsJsonObject());
        }
      }
    }
    return out;
  }

  static void putIfSet(final JsonObject o, final String member, final String value) {
    if (value != null) {
      o.addProperty(member, value);
    }
  }
}
