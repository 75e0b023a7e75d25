package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.backend.Conditions;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The status of a PDTopology from its rules and its resolved pools. Pure.
 *
 * <ol>
 *   <li>A spec that breaks {@link PdTopologyRules}: {@code Ready=False/InvalidSpec}, the message
 *       names every field; the topology is left out of the server's body.
 *   <li>Else a pool without a Running replica: {@code Ready=False} with the first such pool's
 *       reason ({@code NoMatchLabels}, {@code NoMatchingPods}, {@code PodsNotRunning}); the message
 *       names every such pool and why. The topology is pushed (the server answers {@code
 *       PD_POOL_EMPTY} for it).
 *   <li>Else {@code Ready=True/PoolsResolved}, the message gives each pool's replica count.
 * </ol>
 *
 * {@code status.pools} lists every named pool (prefill first) with its Running replica count;
 * {@code observedGeneration} is the spec's generation.
 */
public final class PdTopologyVerdict {
  /** The condition type. */
  public static final String READY = ReadyReconciler.READY;

  /** Reason of a spec that breaks the rules. */
  public static final String INVALID = "InvalidSpec";

  /** Reason of a topology whose every pool has a replica. */
  public static final String RESOLVED = "PoolsResolved";

  private PdTopologyVerdict() {}

  /**
   * The new status; {@code old}'s conditions keep their transition time when their status holds.
   */
  public static PDTopology.Status status(
      final PDTopology.Status old,
      final long generation,
      final List<PdTopologyRules.Violation> violations,
      final List<PoolResolution.Pool> pools,
      final String namespace,
      final OffsetDateTime now) {
    final PDTopology.Status st = new PDTopology.Status();
    st.observedGeneration = generation;
    st.pools = new ArrayList<>();
    for (final PoolResolution.Pool p : pools) {
      final PDTopology.PoolStatus s = new PDTopology.PoolStatus();
      s.name = p.name();
      s.role = p.role();
      s.replicas = p.members().size();
      st.pools.add(s);
    }
    st.conditions = ReadyConditions.copy(old == null ? null : old.conditions);
    final String status;
    final String reason;
    final String message;
    if (!violations.isEmpty()) {
      status = Conditions.FALSE;
      reason = INVALID;
      message = "not pushed to the server: " + join(violations);
    } else {
      final List<PoolResolution.Pool> empty = new ArrayList<>();
      for (final PoolResolution.Pool p : pools) {
        if (p.gap() != null) {
          empty.add(p);
        }
      }
      if (empty.isEmpty()) {
        status = Conditions.TRUE;
        reason = RESOLVED;
        message = counts(pools);
      } else {
        status = Conditions.FALSE;
        reason = empty.get(0).gap().reason();
        message = gaps(empty, namespace);
      }
    }
    st.conditions = Conditions.set(st.conditions, READY, status, reason, message, generation, now);
    return st;
  }

  private static String join(final List<PdTopologyRules.Violation> violations) {
    final StringBuilder b = new StringBuilder();
    for (final PdTopologyRules.Violation v : violations) {
      if (b.length() > 0) {
        b.append("; ");
      }
      b.append(v);
    }
    return b.toString();
  }

  private static String counts(final List<PoolResolution.Pool> pools) {
    final StringBuilder b = new StringBuilder();
    for (final PoolResolution.Pool p : pools) {
      if (b.length() > 0) {
        b.append(", ");
      }
      final int n = p.members().size();
      b.append(role(p))
          .append(" pool ")
          .append(p.name())
          .append(": ")
          .append(n)
          .append(n == 1 ? " replica" : " replicas");
    }
    return b.toString();
  }

  private static String gaps(final List<PoolResolution.Pool> empty, final String namespace) {
    final StringBuilder b = new StringBuilder("pools without a Running replica: ");
    for (int i = 0; i < empty.size(); i++) {
      final PoolResolution.Pool p = empty.get(i);
      if (i > 0) {
        b.append("; ");
      }
      b.append(role(p)).append(" pool ").append(p.name()).append(" (");
      switch (p.gap()) {
        case NO_MATCH_LABELS -> b.append("no matchLabels");
        case NO_MATCHING_PODS ->
            b.append("no pod in namespace ")
                .append(namespace)
                .append(" has the labels ")
                .append(p.selector());
        case PODS_NOT_RUNNING ->
            b.append(p.matched())
                .append(p.matched() == 1 ? " pod has" : " pods have")
                .append(" the labels ")
                .append(p.selector())
                .append(", none is Running");
      }
      b.append(')');
    }
    return b.toString();
  }

  private static String role(final PoolResolution.Pool p) {
    return p.role() == PDTopology.Role.PREFILL ? "prefill" : "decode";
  }
}
