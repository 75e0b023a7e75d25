package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.openapi.models.V1Condition;
import java.time.Instant;
import java.time.OffsetDateTime;
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
 * shadowed ({@code DuplicateTenantID} / {@code NotEffective}). Pure; times are held as the
 * whole-second text {@link CrText#time} writes, and {@link #toStatus}/{@link #from} map to and from
 * the typed status.
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
      final List<CacheTenant> tenants, final ServerSnapshot snapshot, final Instant now) {
    final Map<String, Long> observed = new HashMap<>();
    for (final ServerSnapshot.Tenant t : snapshot.tenants()) {
      observed.putIfAbsent(t.tenantId(), t.indexEntries());
    }
    final Map<String, String> ownerById = new HashMap<>();
    for (final CacheTenant owner : PolicyBody.owners(tenants)) {
      ownerById.put(PolicyBody.tenantId(owner), owner.key());
    }
    final String nowText = CrText.time(now);
    final Map<String, TenantStatus> out = new LinkedHashMap<>();
    for (final CacheTenant cr : tenants) {
      final String id = PolicyBody.tenantId(cr);
      final long generation = cr.generation();
      final long entries = observed.getOrDefault(id == null ? "" : id, 0L);
      final String owner = id == null ? null : ownerById.get(id);
      final List<Condition> wanted = new ArrayList<>(2);
      if (owner != null && !owner.equals(cr.key())) {
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
        wanted.add(quota(PolicyBody.maxIndexEntries(cr), entries, generation));
      }
      final TenantStatus stored = from(cr.getStatus());
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
      out.put(cr.key(), new TenantStatus(generation, entries, timed));
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

  /** The typed status to write ({@link CrText#tree} puts it on the wire). */
  public CacheTenant.Status toStatus() {
    final CacheTenant.Status status = new CacheTenant.Status();
    status.observedGeneration = observedGeneration;
    status.indexEntries = indexEntries;
    status.conditions = new ArrayList<>();
    for (final Condition c : conditions) {
      status.conditions.add(
          new V1Condition()
              .type(c.type())
              .status(c.status())
              .reason(c.reason())
              .message(c.message())
              .observedGeneration(c.observedGeneration())
              .lastTransitionTime(
                  c.lastTransitionTime() == null
                      ? null
                      : OffsetDateTime.parse(c.lastTransitionTime())));
    }
    return status;
  }

  /** A stored status read back; {@code null} when there is none. */
  public static TenantStatus from(final CacheTenant.Status status) {
    if (status == null
        || (status.observedGeneration == null
            && status.indexEntries == null
            && status.conditions == null)) {
      return null;
    }
    final List<Condition> conditions = new ArrayList<>();
    if (status.conditions != null) {
      for (final V1Condition c : status.conditions) {
        final Long g = c.getObservedGeneration();
        conditions.add(
            new Condition(
                c.getType(),
                c.getStatus(),
                c.getReason(),
                c.getMessage(),
                g == null ? 0 : g,
                CrText.time(c.getLastTransitionTime())));
      }
    }
    final Long g = status.observedGeneration;
    return new TenantStatus(g == null ? 0 : g, status.indexEntries, conditions);
  }
}
