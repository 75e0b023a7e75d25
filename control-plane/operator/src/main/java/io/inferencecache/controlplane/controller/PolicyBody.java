package io.inferencecache.controlplane.controller;

import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.api.PolicyJson;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.inferencecache.controlplane.k8s.model.CustomResource;
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
 * the cluster. Pure: typed objects in, JSON text out; the wire encoding is {@link
 * PolicyJson#write}, the same encoder the server's own tests read back.
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

  private PolicyBody() {}

  /** The JSON body for these CachePolicy and CacheTenant objects. */
  public static String build(final List<CachePolicy> policies, final List<CacheTenant> tenants) {
    return PolicyJson.write(snapshot(policies, tenants));
  }

  /** The snapshot {@link #build} encodes. */
  public static PolicySnapshot snapshot(
      final List<CachePolicy> policies, final List<CacheTenant> tenants) {
    final List<PolicySpec> resolved = new ArrayList<>();
    final Set<String> namespaces = new HashSet<>();
    for (final CachePolicy p : byNamespaceName(policies)) {
      if (namespaces.add(namespace(p))) {
        resolved.add(policy(p));
      }
    }
    return new PolicySnapshot(VERSION, resolved, quotaTenants(tenants));
  }

  /**
   * The quota-bearing tenants in push order, first per tenant id: the same owner rule the status
   * projection uses.
   */
  static List<TenantSpec> quotaTenants(final List<CacheTenant> tenants) {
    final List<TenantSpec> out = new ArrayList<>();
    for (final CacheTenant t : owners(tenants)) {
      final CacheTenant.Spec spec = t.getSpec();
      out.add(
          new TenantSpec(
              spec.tenantID,
              spec.quota.maxIndexEntries,
              spec.isolationMode == null ? null : CrText.tree(spec.isolationMode).getAsString()));
    }
    return out;
  }

  /** Quota-bearing CacheTenants with a tenant id, ordered by (namespace, name), first per id. */
  static List<CacheTenant> owners(final List<CacheTenant> tenants) {
    final List<CacheTenant> out = new ArrayList<>();
    final Set<String> ids = new HashSet<>();
    for (final CacheTenant t : byNamespaceName(tenants)) {
      final String id = tenantId(t);
      if (id == null || id.isEmpty() || maxIndexEntries(t) == null) {
        continue;
      }
      if (ids.add(id)) {
        out.add(t);
      }
    }
    return out;
  }

  /** {@code spec.tenantID}, or {@code null}. */
  static String tenantId(final CacheTenant t) {
    return t.getSpec() == null ? null : t.getSpec().tenantID;
  }

  /** {@code spec.quota.maxIndexEntries}, or {@code null}. */
  static Long maxIndexEntries(final CacheTenant t) {
    final CacheTenant.Spec spec = t.getSpec();
    return spec == null || spec.quota == null ? null : spec.quota.maxIndexEntries;
  }

  private static <T extends CustomResource<?, ?>> List<T> byNamespaceName(final List<T> objects) {
    final List<T> sorted = new ArrayList<>(objects);
    sorted.sort(Comparator.comparing((T o) -> namespace(o)).thenComparing(o -> name(o)));
    return sorted;
  }

  private static String namespace(final CustomResource<?, ?> o) {
    final String ns = o.getMetadata() == null ? null : o.getMetadata().getNamespace();
    return ns == null ? "" : ns;
  }

  private static String name(final CustomResource<?, ?> o) {
    final String n = o.getMetadata() == null ? null : o.getMetadata().getName();
    return n == null ? "" : n;
  }

  /** One CachePolicy resolved to its wire form. */
  static PolicySpec policy(final CachePolicy cr) {
    final CachePolicy.Spec spec = cr.getSpec() == null ? new CachePolicy.Spec() : cr.getSpec();
    final PolicySpec.Builder b = PolicySpec.builder(namespace(cr));
    b.evictionTTLNanos(durationNanos(spec.evictionTTL));
    b.minimumPrefixTokens(orZero(spec.minimumPrefixTokens));
    b.minimumMatchedTokens(orZero(spec.minimumMatchedTokens));
    b.lookupTimeoutMs(orZero(spec.lookupTimeoutMs));
    b.maxReplicas(orZero(spec.maxReplicas));
    b.routingFloorScore(
        spec.routingFloorScore == null ? null : routingFloorScore(spec.routingFloorScore));
    b.affinityRouting(affinity(spec.affinityRouting));
    b.eviction(eviction(spec.eviction));
    final CachePolicy.Strategy strategy = spec.strategy;
    if (strategy != null) {
      b.strategy(
          new StrategySpec(
              strategy.enableChainMatching, strategy.requireChain, strategy.enableTenantHot));
    }
    if (spec.loadAwareRouting != null) {
      b.loadAwareRouting(loadAware(spec.loadAwareRouting));
    }
    return b.build();
  }

  /**
   * {@code spec.loadAwareRouting} (an inference-cache extension): integers as they are, the two
   * pressures from their decimal strings; a member absent or unparseable is sent absent (the
   * server's default).
   */
  static LoadAwareSpec loadAware(final CachePolicy.LoadAwareRouting la) {
    return new LoadAwareSpec(
        la.pressureTokens,
        decimal(la.pressureBound),
        la.rankedReplicas,
        decimal(la.hintPressure),
        la.costModel == null ? null : costModel(la.costModel));
  }

  /**
   * {@code spec.loadAwareRouting.costModel}: {@code prefillTokensPerSecond} and {@code slots} as
   * integers, {@code requestSeconds} from its decimal string; a member absent or unparseable is
   * sent absent (the server's default).
   */
  static CostModelSpec costModel(final CachePolicy.CostModel cm) {
    return new CostModelSpec(
        cm.prefillTokensPerSecond == null ? null : (float) cm.prefillTokensPerSecond.intValue(),
        decimal(cm.requestSeconds),
        cm.slots);
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

  /** {@code Enabled} → true, {@code Disabled} → false, absent (or unknown) → absent. */
  static Boolean affinity(final CachePolicy.AffinityRouting value) {
    return value == null ? null : value == CachePolicy.AffinityRouting.ENABLED;
  }

  /** Lower-case algorithm name; absent (or unknown) → {@code lru}. */
  static String eviction(final CachePolicy.Eviction value) {
    return value == null ? "lru" : value.name().toLowerCase(Locale.ROOT);
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

  private static int orZero(final Integer v) {
    return v == null ? 0 : v;
  }
}
