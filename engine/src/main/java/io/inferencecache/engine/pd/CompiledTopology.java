package io.inferencecache.engine.pd;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * A {@link PdTopology} compiled for the router: each role's members flattened across its pools (a
 * replica listed twice in one role counts once, in its first pool), each member's interned replica
 * id, pool, node class, vendor class and its rank in the topology's replica-id order (the
 * tie-break). Immutable; the arrays are never written after construction and never handed out.
 */
public final class CompiledTopology {
  /** Role index of the prefill pools. */
  public static final int PREFILL = 0;

  /** Role index of the decode pools. */
  public static final int DECODE = 1;

  private final PdTopology topology;
  private final String ref;
  private final double sameNodeBytesPerMs;
  private final double sameVendorBytesPerMs;
  private final double crossBytesPerMs;
  private final Role[] roles = new Role[2];

  /** One role's members. */
  private static final class Role {
    final int[] replica;
    final String[] replicaName;
    final String[] pool;
    final int[] node;
    final int[] vendor;
    final int[] rank;

    Role(final int n) {
      replica = new int[n];
      replicaName = new String[n];
      pool = new String[n];
      node = new int[n];
      vendor = new int[n];
      rank = new int[n];
    }
  }

  CompiledTopology(final PdTopology t, final ToIntFunction<String> interner) {
    this.topology = t;
    this.ref = t.ref();
    final double gb = 1e9 / 1000; // bytes per ms per GB/s
    this.sameNodeBytesPerMs = t.links().sameNodeGBps() * gb;
    this.sameVendorBytesPerMs = t.links().sameVendorGBps() * gb;
    this.crossBytesPerMs = t.links().crossGBps() * gb;
    final Map<String, Integer> nodes = new HashMap<>();
    final Map<String, Integer> vendors = new HashMap<>();
    final Map<String, Integer> vendorOfType = new HashMap<>();
    for (final AcceleratorType a : t.acceleratorTypes()) {
      if (!a.vendor().isEmpty()) {
        vendorOfType.put(a.name(), vendors.computeIfAbsent(a.vendor(), v -> vendors.size()));
      }
    }
    final TreeSet<String> names = new TreeSet<>();
    for (final List<PdPool> pools : List.of(t.prefillPools(), t.decodePools())) {
      for (final PdPool p : pools) {
        for (final PdMember m : p.members()) {
          names.add(m.replicaId());
        }
      }
    }
    final Map<String, Integer> rankOf = new HashMap<>();
    for (final String s : names) {
      rankOf.put(s, rankOf.size());
    }
    int r = 0;
    for (final List<PdPool> pools : List.of(t.prefillPools(), t.decodePools())) {
      final List<PdPool> poolOf = new ArrayList<>();
      final List<PdMember> members = new ArrayList<>();
      final Map<String, Boolean> seen = new HashMap<>();
      for (final PdPool p : pools) {
        for (final PdMember m : p.members()) {
          if (seen.putIfAbsent(m.replicaId(), Boolean.TRUE) == null) {
            members.add(m);
            poolOf.add(p);
          }
        }
      }
      final Role role = new Role(members.size());
      for (int i = 0; i < members.size(); i++) {
        final PdMember m = members.get(i);
        final PdPool p = poolOf.get(i);
        role.replica[i] = interner.applyAsInt(m.replicaId());
        role.replicaName[i] = m.replicaId();
        role.pool[i] = p.name();
        role.node[i] = m.node().isEmpty() ? -1 : nodes.computeIfAbsent(m.node(), v -> nodes.size());
        role.vendor[i] = vendorOfType.getOrDefault(p.acceleratorType(), -1);
        role.rank[i] = rankOf.get(m.replicaId());
      }
      roles[r++] = role;
    }
  }

  /** The topology as given (defaults applied). */
  public PdTopology topology() {
    return topology;
  }

  /** {@code namespace/name}. */
  public String ref() {
    return ref;
  }

  /** The transport hint: {@code Mooncake}, {@code NIXL}, {@code Direct} or empty. */
  public String transport() {
    return topology.transport();
  }

  /**
   * The skip rule's threshold: a decode replica's own uncached tokens must be below it for a
   * decode-local answer (0: never decode-local).
   */
  public int decodeLocalPrefillTokens() {
    return topology.decodeLocalPrefillTokens();
  }

  /** KV bytes moved per prompt token. */
  public long kvBytesPerToken() {
    return topology.kvBytesPerToken();
  }

  /** Members of {@code role} ({@link #PREFILL} or {@link #DECODE}). */
  public int size(final int role) {
    return roles[role].replica.length;
  }

  /**
   * The interned replica id of member {@code i} of {@code role} (negative: the interner gave none).
   */
  public int replica(final int role, final int i) {
    return roles[role].replica[i];
  }

  /** The replica id of member {@code i} of {@code role}, as the topology names it. */
  public String replicaName(final int role, final int i) {
    return roles[role].replicaName[i];
  }

  /** The pool name of member {@code i} of {@code role}. */
  public String pool(final int role, final int i) {
    return roles[role].pool[i];
  }

  /**
   * The rank of member {@code i} of {@code role} in the topology's replica-id order (tie-break).
   */
  public int rank(final int role, final int i) {
    return roles[role].rank[i];
  }

  /**
   * KV transfer bandwidth, in bytes per millisecond, between prefill member {@code p} and decode
   * member {@code d}: the same-node class when both name the same node, else same-vendor when their
   * pools' accelerator types have the same vendor, else cross. Infinite for the same replica (no
   * transfer).
   */
  public double bytesPerMs(final int p, final int d) {
    final Role pf = roles[PREFILL];
    final Role dc = roles[DECODE];
    if (pf.replicaName[p].equals(dc.replicaName[d])) {
      return Double.POSITIVE_INFINITY;
    }
    if (pf.node[p] >= 0 && pf.node[p] == dc.node[d]) {
      return sameNodeBytesPerMs;
    }
    if (pf.vendor[p] >= 0 && pf.vendor[p] == dc.vendor[d]) {
      return sameVendorBytesPerMs;
    }
    return crossBytesPerMs;
  }
}
