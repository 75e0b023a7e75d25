package io.inferencecache.controlplane.controller;

import com.google.gson.JsonObject;
import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.api.PolicyJson;
import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.ResolvedPolicy;
import io.inferencecache.engine.policy.StrategySpec;
import io.inferencecache.engine.policy.TenantSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Builds the one full {@code /policy} body (version 7) from every CachePolicy and CacheTenant in
 * the cluster. Pure: objects in, JSON text out; the wire encoding is {@link PolicyJson#write}, the
 * same encoder the server's own tests read back.
 *
 * <ul>
 *   <li>Policies are ordered by (namespace, name); the first one per namespace wins.
 *   <li>Tenants are emitted only with a non-empty {@code spec.tenantID} and a set {@code
 *       spec.quota.maxIndexEntries} (0 included), ordered by (namespace, name); the first one per
 *       tenant id wins, across namespaces.
 * </ul>
 */
public final class PolicyBody {
  /** The {@code version} this controller writes. */
  public static final int VERSION = PolicySnapshot.PROPAGATION_VERSION;

  private static final Comparator<JsonObject> BY_NAMESPACE_NAME =
      Comparator.comparing(Objects::namespace).thenComparing(Objects::name);

  private PolicyBody() {}

  /** The JSON body for these CachePolicy and CacheTenant objects (full custom-resource JSON). */
  public static String build(final List<JsonObject> policies, final List<JsonObject> tenants) {
    return PolicyJson.write(snapshot(policies, tenants));
  }

  /** The snapshot {@link #build} encodes. */
  public static PolicySnapshot snapshot(
      final List<JsonObject> policies, final List<JsonObject> tenants) {
    final List<JsonObject> sortedPolicies = new ArrayList<>(policies);
    sortedPolicies.sort(BY_NAMESPACE_NAME);
    final List<PolicySpec> resolved = new ArrayList<>();
    final Set<String> namespaces = new HashSet<>();
    for (final JsonObject p : sortedPolicies) {
      if (namespaces.add(Objects.namespace(p))) {
        resolved.add(policy(p));
      }
    }
    return new PolicySnapshot(VERSION, resolved, quotaTenants(tenants));
  }

  /**
   * The quota-bearing tenants in push order, first per tenant id: the same owner rule the status
   * projection uses.
   */
  static List<TenantSpec> quotaTenants(final List<JsonObject> tenants) {
    final List<TenantSpec> out = new ArrayList<>();
    for (final JsonObject t : owners(tenants)) {
      final JsonObject spec = Objects.object(t, "spec");
      out.add(
          new TenantSpec(
              Objects.string(spec, "tenantID"),
              Objects.integer(Objects.object(spec, "quota"), "maxIndexEntries"),
              emptyToNull(Objects.string(spec, "isolationMode"))));
    }
    return out;
  }

  /** Quota-bearing CacheTenants with a tenant id, ordered by (namespace, name), first per id. */
  static List<JsonObject> owners(final List<JsonObject> tenants) {
    final List<JsonObject> sorted = new ArrayList<>(tenants);
    sorted.sort(BY_NAMESPACE_NAME);
    final List<JsonObject> out = new ArrayList<>();
    final Set<String> ids = new HashSet<>();
    for (final JsonObject t : sorted) {
      final JsonObject spec = Objects.object(t, "spec");
      final String id = Objects.string(spec, "tenantID");
      final Long max = Objects.integer(Objects.object(spec, "quota"), "maxIndexEntries");
      if (id == null || id.isEmpty() || max == null) {
        continue;
      }
      if (ids.add(id)) {
        out.add(t);
      }
    }
    return out;
  }

  /** One CachePolicy resolved to its wire form. */
  static PolicySpec policy(final JsonObject cr) {
    final JsonObject spec = Objects.object(cr, "spec");
    final PolicySpec.Builder b = PolicySpec.builder(Objects.namespace(cr));
    b.evictionTTLNanos(durationNanos(Objects.string(spec, "evictionTTL")));
    b.minimumPrefixTokens(int32(Objects.integer(spec, "minimumPrefixTokens")));
    b.minimumMatchedTokens(int32(Objects.integer(spec, "minimumMatchedTokens")));
    b.lookupTimeoutMs(int32(Objects.integer(spec, "lookupTimeoutMs")));
    b.maxReplicas(int32(Objects.integer(spec, "maxReplicas")));
    final String floor = Objects.string(spec, "routingFloorScore");
    b.routingFloorScore(floor == null ? null : routingFloorScore(floor));
    b.affinityRouting(affinity(Objects.string(spec, "affinityRouting")));
    b.eviction(eviction(Objects.string(spec, "eviction")));
    final JsonObject strategy = Objects.object(spec, "strategy");
    if (strategy != null) {
      b.strategy(
          new StrategySpec(
              Objects.bool(strategy, "enableChainMatching"),
              Objects.bool(strategy, "requireChain"),
              Objects.bool(strategy, "enableTenantHot")));
    }
    final JsonObject loadAware = Objects.object(spec, "loadAwareRouting");
    if (loadAware != null) {
      b.loadAwareRouting(loadAware(loadAware));
    }
    return b.build();
  }

  /**
   * {@code spec.loadAwareRouting} (an inference-cache extension): integers as they are, the two
   * pressures from their decimal strings; a member absent or unparseable is sent absent (the
   * server's default).
   */
  static LoadAwareSpec loadAware(final JsonObject la) {
    final Long tokens = Objects.integer(la, "pressureTokens");
    final Long ranked = Objects.integer(la, "rankedReplicas");
    final JsonObject cm = Objects.object(la, "costModel");
    return new LoadAwareSpec(
        tokens == null ? null : int32(tokens),
        decimal(Objects.string(la, "pressureBound")),
        ranked == null ? null : int32(ranked),
        decimal(Objects.string(la, "hintPressure")),
        cm == null ? null : costModel(cm));
  }

  /**
   * {@code spec.loadAwareRouting.costModel}: {@code prefillTokensPerSecond} and {@code slots} as
   * integers, {@code requestSeconds} from its decimal string; a member absent or unparseable is
   * sent absent (the server's default).
   */
  static CostModelSpec costModel(final JsonObject cm) {
    final Long prefill = Objects.integer(cm, "prefillTokensPerSecond");
    final Long slots = Objects.integer(cm, "slots");
    return new CostModelSpec(
        prefill == null ? null : (float) int32(prefill),
        decimal(Objects.string(cm, "requestSeconds")),
        slots == null ? null : int32(slots));
  }

  private static Float decimal(final String text) {
    if (text == null || text.isEmpty() || !text.chars().allMatch(PolicyBody::numberChar)) {
      return null;
    }
    try {
      final float f = Float.parseFloat(text);
      return Float.isFinite(f) ? f : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The float32 of {@code text}; text that is not a plain decimal or exponent number, or a value
   * that is infinite, NaN or negative, falls back to the default floor (never to 0).
   */
  static float routingFloorScore(final String text) {
    if (text.isEmpty() || !text.chars().allMatch(PolicyBody::numberChar)) {
      return ResolvedPolicy.ROUTING_FLOOR_SCORE_DEFAULT;
    }
    final float f;
    try {
      f = Float.parseFloat(text);
    } catch (NumberFormatException e) {
      return ResolvedPolicy.ROUTING_FLOOR_SCORE_DEFAULT;
    }
    if (Float.isNaN(f) || Float.isInfinite(f) || f < 0) {
      return ResolvedPolicy.ROUTING_FLOOR_SCORE_DEFAULT;
    }
    return f;
  }

  private static boolean numberChar(final int c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
  }

  /** {@code Enabled} → true, {@code Disabled} → false, anything else → absent. */
  static Boolean affinity(final String value) {
    if ("Enabled".equals(value)) {
      return Boolean.TRUE;
    }
    if ("Disabled".equals(value)) {
      return Boolean.FALSE;
    }
    return null;
  }

  /** Lower-case algorithm name; absent or empty → {@code lru}. */
  static String eviction(final String value) {
    return value == null || value.isEmpty() ? "lru" : value.toLowerCase(Locale.ROOT);
  }

  /** A Go duration in nanoseconds; absent or unparseable → 0 (omitted: the server default). */
  static long durationNanos(final String value) {
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      return GoDuration.parse(value).toNanos();
    } catch (IllegalArgumentException | ArithmeticException e) {
      return 0;
    }
  }

  private static int int32(final Long v) {
    if (v == null) {
      return 0;
    }
    return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
  }

  private static String emptyToNull(final String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
