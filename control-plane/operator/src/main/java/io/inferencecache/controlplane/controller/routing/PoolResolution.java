package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Resolves the pools of a PDTopology to replicas: a pool's members are the pods of the topology's
 * namespace whose labels hold every pair of the pool's {@code matchLabels}, whose phase is {@code
 * Running} and which are not being deleted; a member's replica id is the pod name (the sidecar
 * reports {@code --replica-id=$(POD_NAME)}) and its node {@code spec.nodeName}. Members are ordered
 * by replica id, so the same pods always give the same body. Pure.
 */
public final class PoolResolution {
  /** Why a pool has no replica. */
  public enum Gap {
    /** The pool has no {@code matchLabels}. */
    NO_MATCH_LABELS("NoMatchLabels"),
    /** No pod of the namespace carries the pool's labels. */
    NO_MATCHING_PODS("NoMatchingPods"),
    /** Pods carry the labels, none is Running (or every Running one is being deleted). */
    PODS_NOT_RUNNING("PodsNotRunning");

    private final String reason;

    Gap(final String reason) {
      this.reason = reason;
    }

    /** The condition reason. */
    public String reason() {
      return reason;
    }
  }

  /**
   * One replica of a pool.
   *
   * @param replicaId the pod name
   * @param node {@code spec.nodeName}, or {@code ""}
   */
  public record Member(String replicaId, String node) {}

  /**
   * One pool as resolved.
   *
   * @param name the pool name
   * @param role prefill or decode
   * @param acceleratorType the pool's {@code acceleratorType}, or null
   * @param selector the pool's {@code matchLabels} as {@code k=v,...} in key order
   * @param members Running matching pods, by replica id
   * @param matched pods whose labels match, in any phase
   * @param gap why {@code members} is empty, or null when it is not
   */
  public record Pool(
      String name,
      PDTopology.Role role,
      String acceleratorType,
      String selector,
      List<Member> members,
      int matched,
      Gap gap) {}

  private PoolResolution() {}

  /** The prefill pools, then the decode pools, of {@code spec} against {@code pods}. */
  public static List<Pool> resolve(final PDTopology.Spec spec, final Collection<V1Pod> pods) {
    final List<Pool> out = new ArrayList<>();
    if (spec == null) {
      return out;
    }
    add(out, spec.prefillPools, PDTopology.Role.PREFILL, pods);
    add(out, spec.decodePools, PDTopology.Role.DECODE, pods);
    return out;
  }

  private static void add(
      final List<Pool> out,
      final List<PDTopology.Pool> pools,
      final PDTopology.Role role,
      final Collection<V1Pod> pods) {
    if (pools == null) {
      return;
    }
    for (final PDTopology.Pool p : pools) {
      if (p != null && p.name != null) {
        out.add(pool(p, role, pods));
      }
    }
  }

  private static Pool pool(
      final PDTopology.Pool p, final PDTopology.Role role, final Collection<V1Pod> pods) {
    if (p.matchLabels == null || p.matchLabels.isEmpty()) {
      return new Pool(p.name, role, p.acceleratorType, "", List.of(), 0, Gap.NO_MATCH_LABELS);
    }
    final List<Member> members = new ArrayList<>();
    int matched = 0;
    for (final V1Pod pod : pods) {
      if (!matches(p.matchLabels, labels(pod))) {
        continue;
      }
      matched++;
      if (running(pod)) {
        final String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        members.add(new Member(pod.getMetadata().getName(), node == null ? "" : node));
      }
    }
    members.sort(Comparator.comparing(Member::replicaId));
    final Gap gap =
        !members.isEmpty() ? null : matched == 0 ? Gap.NO_MATCHING_PODS : Gap.PODS_NOT_RUNNING;
    return new Pool(
        p.name,
        role,
        p.acceleratorType,
        selector(p.matchLabels),
        List.copyOf(members),
        matched,
        gap);
  }

  private static Map<String, String> labels(final V1Pod pod) {
    final Map<String, String> l = pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  /** Whether every pair of {@code selector} is in {@code labels}. */
  static boolean matches(final Map<String, String> selector, final Map<String, String> labels) {
    for (final Map.Entry<String, String> e : selector.entrySet()) {
      if (!Objects.equals(e.getValue(), labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** Phase Running and not being deleted. */
  static boolean running(final V1Pod pod) {
    return pod.getMetadata() != null
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase());
  }

  /** {@code k1=v1,k2=v2} in key order (condition messages). */
  static String selector(final Map<String, String> matchLabels) {
    final StringBuilder b = new StringBuilder();
    for (final Map.Entry<String, String> e : new TreeMap<>(matchLabels).entrySet()) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(e.getKey()).append('=').append(e.getValue());
    }
    return b.toString();
  }
}
