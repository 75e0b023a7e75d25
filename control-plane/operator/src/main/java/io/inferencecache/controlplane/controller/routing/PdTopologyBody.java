package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.api.PdTopologyJson;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import io.inferencecache.engine.pd.AcceleratorType;
import io.inferencecache.engine.pd.PdLinks;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Builds the one full {@code /pd-topologies} body (version 1) from every PDTopology in the cluster
 * and the pods their pools select. Pure: typed objects in, JSON text out; the wire encoding is
 * {@link PdTopologyJson#write}, the codec the server decodes with.
 *
 * <ul>
 *   <li>Topologies are ordered by (namespace, name); one that breaks {@link PdTopologyRules} is
 *       left out (its {@code Ready} condition says so), so the server never refuses the whole set
 *       for one bad object.
 *   <li>Each pool's members are {@link PoolResolution}'s: Running pods, by replica id; an empty
 *       pool is sent with no members (the server answers {@code PD_POOL_EMPTY}).
 *   <li>An unset field takes the server's default (the codec writes it): no transport, threshold 0
 *       (never decode-local), each unset link at its {@link PdLinks} default, {@link
 *       PdTopology#KV_BYTES_PER_TOKEN_DEFAULT}.
 * </ul>
 */
public final class PdTopologyBody {
  /** The {@code version} this controller writes. */
  public static final int VERSION = PdTopologySnapshot.VERSION;

  private PdTopologyBody() {}

  /**
   * The body for {@code topologies}.
   *
   * @param podsIn the pods of a namespace
   */
  public static String build(
      final Collection<PDTopology> topologies, final Function<String, Collection<V1Pod>> podsIn) {
    return PdTopologyJson.write(snapshot(topologies, podsIn));
  }

  /** The snapshot {@link #build} encodes. */
  public static PdTopologySnapshot snapshot(
      final Collection<PDTopology> topologies, final Function<String, Collection<V1Pod>> podsIn) {
    final List<PDTopology> sorted = new ArrayList<>(topologies);
    sorted.sort(
        Comparator.comparing((PDTopology t) -> t.getMetadata().getNamespace())
            .thenComparing(t -> t.getMetadata().getName()));
    final List<PdTopology> out = new ArrayList<>();
    for (final PDTopology t : sorted) {
      final String transport = t.getSpec() == null ? null : transport(t.getSpec());
      if (!PdTopologyRules.check(t.getSpec(), transport).isEmpty()) {
        continue;
      }
      final String ns = t.getMetadata().getNamespace();
      out.add(topology(t, PoolResolution.resolve(t.getSpec(), podsIn.apply(ns))));
    }
    return new PdTopologySnapshot(VERSION, out);
  }

  /** The CRD spelling of the typed transport, or null. */
  static String transport(final PDTopology.Spec spec) {
    return spec.transport == null ? null : spec.transport.text();
  }

  private static PdTopology topology(final PDTopology t, final List<PoolResolution.Pool> pools) {
    final PDTopology.Spec spec = t.getSpec();
    final List<AcceleratorType> types = new ArrayList<>();
    if (spec.acceleratorTypes != null) {
      for (final PDTopology.AcceleratorType at : spec.acceleratorTypes) {
        types.add(new AcceleratorType(at.name, at.vendor, at.model));
      }
    }
    return new PdTopology(
        t.getMetadata().getNamespace(),
        t.getMetadata().getName(),
        spec.transport == null ? "" : spec.transport.text(),
        spec.decodeLocalPrefillTokens == null ? 0 : spec.decodeLocalPrefillTokens,
        links(spec.links),
        spec.kvBytesPerToken == null ? 0 : spec.kvBytesPerToken,
        pools(pools, PDTopology.Role.PREFILL),
        pools(pools, PDTopology.Role.DECODE),
        types);
  }

  private static PdLinks links(final PDTopology.Links l) {
    if (l == null) {
      return PdLinks.DEFAULTS;
    }
    return new PdLinks(
        l.sameNodeGBps == null ? PdLinks.SAME_NODE_GBPS_DEFAULT : l.sameNodeGBps,
        l.sameVendorGBps == null ? PdLinks.SAME_VENDOR_GBPS_DEFAULT : l.sameVendorGBps,
        l.crossGBps == null ? PdLinks.CROSS_GBPS_DEFAULT : l.crossGBps);
  }

  private static List<PdPool> pools(
      final List<PoolResolution.Pool> pools, final PDTopology.Role r) {
    final List<PdPool> out = new ArrayList<>();
    for (final PoolResolution.Pool p : pools) {
      if (p.role() != r) {
        continue;
      }
      final List<PdMember> members = new ArrayList<>();
      for (final PoolResolution.Member m : p.members()) {
        members.add(new PdMember(m.replicaId(), m.node()));
      }
      out.add(
          new PdPool(p.name(), p.acceleratorType() == null ? "" : p.acceleratorType(), members));
    }
    return out;
  }
}
