package io.inferencecache.controlplane.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.engine.pd.AcceleratorType;
import io.inferencecache.engine.pd.PdLinks;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /pd-topologies} body (docs/behaviour.md#lookup-pd-route) in both directions: a strict
 * decoder into an engine {@link PdTopologySnapshot} and the canonical encoder (every field written,
 * defaults applied), used by the server's GET and the controller's push.
 *
 * <p>Strict: {@code version} must be {@link PdTopologySnapshot#VERSION}; unknown or duplicated
 * keys, a value of the wrong JSON type, a fraction or an out-of-range number where an integer
 * belongs, an unknown transport, a pool naming an accelerator type the topology does not list, two
 * topologies with the same {@code namespace/name} and a replica listed twice in one pool are
 * refused. Every error names the field, as a path: {@code
 * topologies[0].prefillPools[1].members[2].replicaId: must be a non-empty string}. Stateless and
 * thread-safe.
 */
public final class PdTopologyJson {
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private static final Set<String> TOP = Set.of("version", "topologies");
  private static final Set<String> TOPOLOGY =
      Set.of(
          "namespace",
          "name",
          "transport",
          "decodeLocalPrefillTokens",
          "links",
          "kvBytesPerToken",
          "prefillPools",
          "decodePools",
          "acceleratorTypes");
  private static final Set<String> LINKS = Set.of("sameNodeGBps", "sameVendorGBps", "crossGBps");
  private static final Set<String> POOL = Set.of("name", "acceleratorType", "members");
  private static final Set<String> MEMBER = Set.of("replicaId", "node");
  private static final Set<String> ACCELERATOR = Set.of("name", "vendor", "model");

  private PdTopologyJson() {}

  /**
   * Decodes {@code body[0, length)}.
   *
   * @throws JsonDecodeException naming the field that is wrong, or the JSON syntax error
   */
  public static PdTopologySnapshot decode(final byte[] body, final int length)
      throws JsonDecodeException {
    final JsonNode root;
    try {
      root = JSON.readTree(body, 0, length);
    } catch (JsonProcessingException e) {
      throw new JsonDecodeException("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new JsonDecodeException("invalid JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      throw new JsonDecodeException("empty body");
    }
    object(root, "", TOP);
    final JsonNode v = root.get("version");
    if (v == null || !v.isIntegralNumber() || v.asLong() != PdTopologySnapshot.VERSION) {
      throw new JsonDecodeException("version: must be " + PdTopologySnapshot.VERSION);
    }
    final List<PdTopology> topologies = new ArrayList<>();
    final Set<String> refs = new HashSet<>();
    final JsonNode list = optionalArray(root, "topologies", "");
    for (int i = 0; i < list.size(); i++) {
      final String at = "topologies[" + i + "]";
      final PdTopology t = topology(list.get(i), at);
      if (!refs.add(t.ref())) {
        throw new JsonDecodeException(at + ": duplicate namespace/name " + t.ref());
      }
      topologies.add(t);
    }
    return new PdTopologySnapshot(PdTopologySnapshot.VERSION, topologies);
  }

  private static PdTopology topology(final JsonNode n, final String at) throws JsonDecodeException {
    object(n, at, TOPOLOGY);
    final String namespace = segment(n, "namespace", at);
    final String name = segment(n, "name", at);
    final String transport = optionalString(n, "transport", at);
    if (!transport.isEmpty() && !PdTopology.TRANSPORTS.contains(transport)) {
      throw new JsonDecodeException(
          at + ".transport: must be Mooncake, NIXL or Direct (or empty), got " + transport);
    }
    final long decodeLocal = integer(n, "decodeLocalPrefillTokens", at, 0, 0, Integer.MAX_VALUE);
    final long kvBytes =
        integer(n, "kvBytesPerToken", at, PdTopology.KV_BYTES_PER_TOKEN_DEFAULT, 1, Long.MAX_VALUE);
    final PdLinks links = links(n.get("links"), at + ".links");
    final List<AcceleratorType> types = new ArrayList<>();
    final Set<String> typeNames = new HashSet<>();
    final JsonNode ts = optionalArray(n, "acceleratorTypes", at);
    for (int i = 0; i < ts.size(); i++) {
      final String p = at + ".acceleratorTypes[" + i + "]";
      final JsonNode a = ts.get(i);
      object(a, p, ACCELERATOR);
      final String typeName = requiredString(a, "name", p);
      if (!typeNames.add(typeName)) {
        throw new JsonDecodeException(p + ".name: duplicate accelerator type " + typeName);
      }
      types.add(
          new AcceleratorType(
              typeName, optionalString(a, "vendor", p), optionalString(a, "model", p)));
    }
    final List<PdPool> prefill = pools(n, "prefillPools", at, typeNames);
    final List<PdPool> decode = pools(n, "decodePools", at, typeNames);
    try {
      return new PdTopology(
          namespace, name, transport, (int) decodeLocal, links, kvBytes, prefill, decode, types);
    } catch (IllegalArgumentException e) { // every rule is checked above; kept as a backstop
      throw new JsonDecodeException(at + ": " + e.getMessage());
    }
  }

  private static PdLinks links(final JsonNode n, final String at) throws JsonDecodeException {
    if (n == null || n.isNull()) {
      return PdLinks.DEFAULTS;
    }
    object(n, at, LINKS);
    return new PdLinks(
        bandwidth(n, "sameNodeGBps", at, PdLinks.SAME_NODE_GBPS_DEFAULT),
        bandwidth(n, "sameVendorGBps", at, PdLinks.SAME_VENDOR_GBPS_DEFAULT),
        bandwidth(n, "crossGBps", at, PdLinks.CROSS_GBPS_DEFAULT));
  }

  private static double bandwidth(
      final JsonNode n, final String field, final String at, final double dflt)
      throws JsonDecodeException {
    final JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isNumber() || !(v.asDouble() > 0) || Double.isInfinite(v.asDouble())) {
      throw new JsonDecodeException(at + "." + field + ": must be a number > 0 (GB/s)");
    }
    return v.asDouble();
  }

  private static List<PdPool> pools(
      final JsonNode n, final String field, final String at, final Set<String> typeNames)
      throws JsonDecodeException {
    final JsonNode list = n.get(field);
    if (list == null || !list.isArray() || list.isEmpty()) {
      throw new JsonDecodeException(at + "." + field + ": must be an array of at least one pool");
    }
    final List<PdPool> pools = new ArrayList<>();
    final Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      final String p = at + "." + field + "[" + i + "]";
      final JsonNode pool = list.get(i);
      object(pool, p, POOL);
      final String name = requiredString(pool, "name", p);
      if (!names.add(name)) {
        throw new JsonDecodeException(p + ".name: duplicate pool " + name);
      }
      final String type = optionalString(pool, "acceleratorType", p);
      if (!type.isEmpty() && !typeNames.contains(type)) {
        throw new JsonDecodeException(
            p + ".acceleratorType: no acceleratorTypes entry named " + type);
      }
      final List<PdMember> members = new ArrayList<>();
      final Set<String> ids = new HashSet<>();
      final JsonNode ms = optionalArray(pool, "members", p);
      for (int j = 0; j < ms.size(); j++) {
        final String mp = p + ".members[" + j + "]";
        final JsonNode m = ms.get(j);
        object(m, mp, MEMBER);
        final String id = requiredString(m, "replicaId", mp);
        if (!ids.add(id)) {
          throw new JsonDecodeException(mp + ".replicaId: listed twice in the pool: " + id);
        }
        members.add(new PdMember(id, optionalString(m, "node", mp)));
      }
      pools.add(new PdPool(name, type, members));
    }
    return pools;
  }

  // -----------------------------------------------------------------------------------------------
  // Field readers: each error names the field's path.

  private static void object(final JsonNode n, final String at, final Set<String> known)
      throws JsonDecodeException {
    if (n == null || !n.isObject()) {
      throw new JsonDecodeException((at.isEmpty() ? "body" : at) + ": must be an object");
    }
    final Iterator<String> names = n.fieldNames();
    while (names.hasNext()) {
      final String k = names.next();
      if (!known.contains(k)) {
        throw new JsonDecodeException(prefix(at) + k + ": unknown field");
      }
    }
  }

  private static String prefix(final String at) {
    return at.isEmpty() ? "" : at + ".";
  }

  private static JsonNode optionalArray(final JsonNode n, final String field, final String at)
      throws JsonDecodeException {
    final JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return JSON.createArrayNode();
    }
    if (!v.isArray()) {
      throw new JsonDecodeException(prefix(at) + field + ": must be an array");
    }
    return v;
  }

  private static String optionalString(final JsonNode n, final String field, final String at)
      throws JsonDecodeException {
    final JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return "";
    }
    if (!v.isTextual()) {
      throw new JsonDecodeException(prefix(at) + field + ": must be a string");
    }
    return v.asText();
  }

  private static String requiredString(final JsonNode n, final String field, final String at)
      throws JsonDecodeException {
    final String s = optionalString(n, field, at);
    if (s.isEmpty()) {
      throw new JsonDecodeException(prefix(at) + field + ": must be a non-empty string");
    }
    return s;
  }

  private static String segment(final JsonNode n, final String field, final String at)
      throws JsonDecodeException {
    final String s = requiredString(n, field, at);
    if (s.indexOf('/') >= 0) {
      throw new JsonDecodeException(prefix(at) + field + ": must not contain '/'");
    }
    return s;
  }

  private static long integer(
      final JsonNode n,
      final String field,
      final String at,
      final long dflt,
      final long min,
      final long max)
      throws JsonDecodeException {
    final JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw new JsonDecodeException(
          prefix(at) + field + ": must be an integer in [" + min + ", " + max + "]");
    }
    return v.asLong();
  }

  // -----------------------------------------------------------------------------------------------
  // Encoding

  /** The canonical body of {@code snapshot}: every field, defaults applied, body order. */
  public static String write(final PdTopologySnapshot snapshot) {
    final ObjectNode root = JSON.createObjectNode();
    root.put("version", PdTopologySnapshot.VERSION);
    final ArrayNode list = root.putArray("topologies");
    for (final PdTopology t : snapshot.topologies()) {
      final ObjectNode o = list.addObject();
      o.put("namespace", t.namespace());
      o.put("name", t.name());
      o.put("transport", t.transport());
      o.put("decodeLocalPrefillTokens", t.decodeLocalPrefillTokens());
      final ObjectNode links = o.putObject("links");
      links.put("sameNodeGBps", t.links().sameNodeGBps());
      links.put("sameVendorGBps", t.links().sameVendorGBps());
      links.put("crossGBps", t.links().crossGBps());
      o.put("kvBytesPerToken", t.kvBytesPerToken());
      for (final Map.Entry<String, List<PdPool>> role :
          List.of(
              Map.entry("prefillPools", t.prefillPools()),
              Map.entry("decodePools", t.decodePools()))) {
        final ArrayNode pools = o.putArray(role.getKey());
        for (final PdPool p : role.getValue()) {
          final ObjectNode po = pools.addObject();
          po.put("name", p.name());
          po.put("acceleratorType", p.acceleratorType());
          final ArrayNode members = po.putArray("members");
          for (final PdMember m : p.members()) {
            members.addObject().put("replicaId", m.replicaId()).put("node", m.node());
          }
        }
      }
      final ArrayNode types = o.putArray("acceleratorTypes");
      for (final AcceleratorType a : t.acceleratorTypes()) {
        types.addObject().put("name", a.name()).put("vendor", a.vendor()).put("model", a.model());
      }
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }
}
