package io.inferencecache.controlplane.controller.routing;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * Builds the one full {@code /pd-topologies} body (version 1) from every PDTopology in the cluster
 * and the pods their pools select. Pure: typed objects in, JSON text out.
 *
 * <ul>
 *   <li>Topologies are ordered by (namespace, name); one that breaks {@link PdTopologyRules} is
 *       left out (its {@code Ready} condition says so), so the server never refuses the whole set
 *       for one bad object.
 *   <li>Each pool's members are {@link PoolResolution}'s: Running pods, by replica id; an empty
 *       pool is sent with no members.
 *   <li>Optional fields ({@code transport}, {@code decodeLocalPrefillTokens}, {@code links} and its
 *       three bandwidths, {@code kvBytesPerToken}, a pool's {@code acceleratorType}, an accelerator
 *       type's {@code vendor} and {@code model}, a member's {@code node}) are omitted when unset:
 *       the server applies its defaults.
 * </ul>
 */
public final class PdTopologyBody {
  /** The {@code version} this controller writes. */
  public static final int VERSION = 1;

  private PdTopologyBody() {}

  /**
   * The body for {@code topologies}.
   *
   * @param podsIn the pods of a namespace
   */
  public static String build(
      final Collection<PDTopology> topologies, final Function<String, Collection<V1Pod>> podsIn) {
    final List<PDTopology> sorted = new ArrayList<>(topologies);
    sorted.sort(
        Comparator.comparing((PDTopology t) -> t.getMetadata().getNamespace())
            .thenComparing(t -> t.getMetadata().getName()));
    final JsonArray out = new JsonArray();
    for (final PDTopology t : sorted) {
      final String transport = t.getSpec() == null ? null : transport(t.getSpec());
      if (!PdTopologyRules.check(t.getSpec(), transport).isEmpty()) {
        continue;
      }
      final String ns = t.getMetadata().getNamespace();
      out.add(topology(t, PoolResolution.resolve(t.getSpec(), podsIn.apply(ns))));
    }
    final JsonObject body = new JsonObject();
    body.addProperty("version", VERSION);
    body.add("topologies", out);
    return body.toString();
  }

  /** The CRD spelling of the typed transport, or null. */
  static String transport(final PDTopology.Spec spec) {
    return spec.transport == null ? null : spec.transport.text();
  }

  private static JsonObject topology(final PDTopology t, final List<PoolResolution.Pool> pools) {
    final PDTopology.Spec spec = t.getSpec();
    final JsonObject o = new JsonObject();
    o.addProperty("namespace", t.getMetadata().getNamespace());
    o.addProperty("name", t.getMetadata().getName());
    if (spec.transport != null) {
      o.addProperty("transport", spec.transport.text());
    }
    if (spec.decodeLocalPrefillTokens != null) {
      o.addProperty("decodeLocalPrefillTokens", spec.decodeLocalPrefillTokens);
    }
    if (spec.links != null) {
      final JsonObject l = new JsonObject();
      number(l, "sameNodeGBps", spec.links.sameNodeGBps);
      number(l, "sameVendorGBps", spec.links.sameVendorGBps);
      number(l, "crossGBps", spec.links.crossGBps);
      o.add("links", l);
    }
    if (spec.kvBytesPerToken != null) {
      o.addProperty("kvBytesPerToken", spec.kvBytesPerToken);
    }
    o.add("prefillPools", pools(pools, PDTopology.Role.PREFILL));
    o.add("decodePools", pools(pools, PDTopology.Role.DECODE));
    if (spec.acceleratorTypes != null && !spec.acceleratorTypes.isEmpty()) {
      final JsonArray a = new JsonArray();
      for (final PDTopology.AcceleratorType at : spec.acceleratorTypes) {
        final JsonObject e = new JsonObject();
        e.addProperty("name", at.name);
        text(e, "vendor", at.vendor);
        text(e, "model", at.model);
        a.add(e);
      }
      o.add("acceleratorTypes", a);
    }
    return o;
  }

  private static JsonArray pools(final List<PoolResolution.Pool> pools, final PDTopology.Role r) {
    final JsonArray a = new JsonArray();
    for (final PoolResolution.Pool p : pools) {
      if (p.role() != r) {
        continue;
      }
      final JsonObject o = new JsonObject();
      o.addProperty("name", p.name());
      text(o, "acceleratorType", p.acceleratorType());
      final JsonArray members = new JsonArray();
      for (final PoolResolution.Member m : p.members()) {
        final JsonObject e = new JsonObject();
        e.addProperty("replicaId", m.replicaId());
        text(e, "node", m.node());
        members.add(e);
      }
      o.add("members", members);
      a.add(o);
    }
    return a;
  }

  /** A whole number as an integer ({@code 300}, not {@code 300.0}), else as it is. */
  private static void number(final JsonObject o, final String key, final Double v) {
    if (v == null) {
      return;
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      o.addProperty(key, v.longValue());
    } else {
      o.addProperty(key, v);
    }
  }

  private static void text(final JsonObject o, final String key, final String v) {
    if (v != null && !v.isEmpty()) {
      o.addProperty(key, v);
    }
  }
}
