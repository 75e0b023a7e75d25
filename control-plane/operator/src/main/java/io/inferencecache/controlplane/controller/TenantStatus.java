package io.inferencecache.controlplane.controller;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The status the snapshot mirror writes on each CacheTenant: {@code observedGeneration}, {@code
 * indexEntries} (a tenant id missing from the snapshot is observed as 0) and the {@code Ready} and
 * {@code QuotaExceeded} conditions. A tenant id belongs to the first quota-bearing CacheTenant by
 * (namespace, name), the rule the policy push uses; every other CacheTenant with that id is
 * shadowed ({@code DuplicateTenantID} / {@code NotEffective}). Pure.
 */
public record TenantStatus(long observedGeneration, Long indexEntries, List<Condition> conditions) {

  public TenantStatus {
    conditions = List.copyOf(conditions);
  }

  /** A {@code metav1.Condition}. */
  public record Condition(
      String type,
      String status,
      String reason,
      String message,
      long observedGeneration,
      String lastTransitionTime) {

    Condition withoutTime() {
      return new Condition(type, status, reason, message, observedGeneration, null);
    }
  }

  static final String READY = "Ready";
  static final String QUOTA_EXCEEDED = "QuotaExceeded";

  /**
   * The desired status of every CacheTenant in {@code tenants}, keyed by {@code namespace/name}, in
   * the order given; each condition keeps its stored {@code lastTransitionTime} while its status
   * does not change.
   */
  public static Map<String, TenantStatus> project(
      final List<JsonObject> tenants, final ServerSnapshot snapshot, final Instant now) {
    final Map<String, Long> observed = new HashMap<>();
    for (final ServerSnapshot.Tenant t : snapshot.tenants()) {
      observed.putIfAbsent(t.tenantId(), t.indexEntries());
    }
    final Map<String, String> ownerById = new HashMap<>();
    for (final JsonObject owner : PolicyBody.owners(tenants)) {
      ownerById.put(tenantId(owner), key(owner));
    }
    final String nowText = CrText.time(now);
    final Map<String, TenantStatus> out = new LinkedHashMap<>();
    for (final JsonObject cr : tenants) {
      final String id = tenantId(cr);
      final long generation = Objects.generation(cr);
      final long entries = observed.getOrDefault(id == null ? "" : id, 0L);
      final String owner = id == null ? null : ownerById.get(id);
      final List<Condition> wanted = new ArrayList<>(2);
      if (owner != null && !owner.equals(key(cr))) {
        final String msg = "tenantID \"" + id + "\" is owned by CacheTenant " + owner;
        wanted.add(new Condition(READY, "False", "DuplicateTenantID", msg, generation, null));
        wanted.add(new Condition(QUOTA_EXCEEDED, "False", "NotEffective", msg, generation, null));
      } else {
        wanted.add(
            new Condition(
                READY,
                "True",
                "Observed",
                "projected from the latest server snapshot read",
                generation,
                null));
        wanted.add(quota(maxEntries(cr), entries, generation));
      }
      final TenantStatus stored = fromJson(Objects.object(cr, "status"));
      final List<Condition> timed = new ArrayList<>(2);
      for (final Condition c : wanted) {
        final Condition before = stored == null ? null : stored.condition(c.type());
        final String since =
            before != null
                    && before.status().equals(c.status())
                    && before.lastTransitionTime() != null
                ? before.lastTransitionTime()
                : nowText;
        timed.add(new Condition(c.type(), c.status(), c.reason(), c.message(), generation, since));
      }
      out.put(key(cr), new TenantStatus(generation, entries, timed));
    }
    return out;
  }

  private static Condition quota(final Long max, final long entries, final long generation) {
    if (max == null) {
      return new Condition(
          QUOTA_EXCEEDED, "False", "NoQuota", "no spec.quota.maxIndexEntries", generation, null);
    }
    if (entries > max) {
      return new Condition(
          QUOTA_EXCEEDED,
          "True",
          "OverEntryBudget",
          "indexEntries " + entries + " exceeds maxIndexEntries " + max,
          generation,
          null);
    }
    return new Condition(
        QUOTA_EXCEEDED,
        "False",
        "WithinBudget",
        "indexEntries " + entries + " within maxIndexEntries " + max,
        generation,
        null);
  }

  /** The condition of {@code type}, or {@code null}. */
  public Condition condition(final String type) {
    for (final Condition c : conditions) {
      if (type.equals(c.type())) {
        return c;
      }
    }
    return null;
  }

  /** Whether this equals {@code other} apart from the conditions' {@code lastTransitionTime}. */
  public boolean sameIgnoringTimes(final TenantStatus other) {
    if (other == null
        || observedGeneration != other.observedGeneration
        || !java.util.Objects.equals(indexEntries, other.indexEntries)
        || conditions.size() != other.conditions.size()) {
      return false;
    }
    for (int i = 0; i < conditions.size(); i++) {
      if (!conditions.get(i).withoutTime().equals(other.conditions.get(i).withoutTime())) {
        return false;
      }
    }
    return true;
  }

  /** The {@code status} object as written to the API server. */
  public JsonObject toJson() {
    final JsonObject status = new JsonObject();
    status.addProperty("observedGeneration", observedGeneration);
    if (indexEntries != null) {
      status.addProperty("indexEntries", indexEntries);
    }
    final JsonArray list = new JsonArray();
    for (final Condition c : conditions) {
      final JsonObject o = new JsonObject();
      o.addProperty("type", c.type());
      o.addProperty("status", c.status());
      o.addProperty("reason", c.reason());
      o.addProperty("message", c.message());
      o.addProperty("observedGeneration", c.observedGeneration());
      CacheIndexStatus.putIfSet(o, "lastTransitionTime", c.lastTransitionTime());
      list.add(o);
    }
    status.add("conditions", list);
    return status;
  }

  /** A stored status read back; {@code null} when there is none. */
  public static TenantStatus fromJson(final JsonObject status) {
    if (status == null || status.size() == 0) {
      return null;
    }
    final List<Condition> conditions = new ArrayList<>();
    for (final JsonObject c : CacheIndexStatus.objects(status.get("conditions"))) {
      final Long g = Objects.integer(c, "observedGeneration");
      conditions.add(
          new Condition(
              Objects.string(c, "type"),
              Objects.string(c, "status"),
              Objects.string(c, "reason"),
              Objects.string(c, "message"),
              g == null ? 0 : g,
              Objects.string(c, "lastTransitionTime")));
    }
    final Long g = Objects.integer(status, "observedGeneration");
    return new TenantStatus(g == null ? 0 : g, Objects.integer(status, "indexEntries"), conditions);
  }

  static String key(final JsonObject cr) {
    return Objects.namespace(cr) + "/" + Objects.name(cr);
  }

  private static String tenantId(final JsonObject cr) {
    return Objects.string(Objects.object(cr, "spec"), "tenantID");
  }

  private static Long maxEntries(final JsonObject cr) {
    return Objects.integer(Objects.object(Objects.object(cr, "spec"), "quota"), "maxIndexEntries");
  }
}
