package io.inferencecache.controlplane.api;

import com.fasterxml.jackson.core.JsonToken;
import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.StrategySpec;
import io.inferencecache.engine.policy.TenantSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code /policy} body (docs/behaviour.md#policy) in both directions: a strict decoder with
 * Go's rules (see {@link StrictJson}) into an engine {@link PolicySnapshot}, and the canonical
 * encoder (Go struct tags: {@code policies} always written, {@code tenants} and most policy fields
 * {@code omitempty}). The version is returned as decoded (missing or {@code null} = 0); checking
 * the [3, 7] window and normalizing are the caller's. Stateless and thread-safe.
 */
public final class PolicyJson {
  private static final String[] TOP = {"version", "policies", "tenants"};
  private static final String[] POLICY = {
    "namespace",
    "evictionTTL",
    "minimumPrefixTokens",
    "minimumMatchedTokens",
    "routingFloorScore",
    "lookupTimeoutMs",
    "affinityRouting",
    "eviction",
    "strategy",
    "loadAwareRouting",
    "maxReplicas"
  };
  private static final String[] LOAD_AWARE = {
    "pressureTokens", "pressureBound", "rankedReplicas", "hintPressure", "costModel"
  };
  private static final String[] COST_MODEL = {"prefillTokensPerSecond", "requestSeconds", "slots"};
  private static final String[] STRATEGY = {
    "enableChainMatching", "requireChain", "enableTenantHot"
  };
  private static final String[] TENANT = {"tenantID", "maxIndexEntries", "isolationMode"};

  private PolicyJson() {}

  /**
   * Decodes the first JSON value of {@code body[0, length)}; what follows it is not read.
   *
   * @throws JsonDecodeException with the text that follows {@code decode policy snapshot: }
   */
  public static PolicySnapshot decode(final byte[] body, final int length)
      throws JsonDecodeException {
    try (StrictJson json = new StrictJson(body, length)) {
      final JsonToken t = json.first();
      if (t == JsonToken.VALUE_NULL) {
        return new PolicySnapshot(0, List.of(), List.of());
      }
      if (t != JsonToken.START_OBJECT) {
        throw new JsonDecodeException(
            "json: cannot unmarshal "
                + (t == JsonToken.START_ARRAY ? "array" : kindOf(t))
                + " into Go value of type PolicySnapshot");
      }
      long version = 0;
      List<PolicySpec> policies = List.of();
      List<TenantSpec> tenants = List.of();
      for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
        final String key = json.fieldName();
        final JsonToken v = json.next();
        switch (StrictJson.match(key, TOP)) {
          case 0 -> {
            final Long n =
                json.integer(v, "PolicySnapshot.version", "int", Long.MIN_VALUE, Long.MAX_VALUE);
            if (n != null) {
              version = n;
            }
          }
          case 1 -> policies = policies(json, v);
          case 2 -> tenants = tenants(json, v);
          default -> json.unknownField(key);
        }
      }
      json.throwIfFailed();
      final int v = version < Integer.MIN_VALUE || version > Integer.MAX_VALUE ? -1 : (int) version;
      return new PolicySnapshot(v, policies, tenants);
    }
  }

  /**
   * Whether {@code t} starts the value {@code start} names (an object or an array); if not, Go's
   * type error for field {@code path} of type {@code goType} is recorded and the value skipped.
   */
  private static boolean opens(
      final StrictJson json,
      final JsonToken t,
      final JsonToken start,
      final String path,
      final String goType)
      throws JsonDecodeException {
    if (t == start) {
      return true;
    }
    json.typeError(
        "json: cannot unmarshal "
            + kindOf(t)
            + " into Go struct field "
            + path
            + " of type "
            + goType);
    json.skip();
    return false;
  }

  private static String kindOf(final JsonToken t) {
    return switch (t) {
      case VALUE_STRING -> "string";
      case VALUE_TRUE, VALUE_FALSE -> "bool";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
      default -> "value";
    };
  }

  private static List<PolicySpec> policies(final StrictJson json, final JsonToken t)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return List.of();
    }
    if (!opens(json, t, JsonToken.START_ARRAY, "PolicySnapshot.policies", "[]PolicySpec")) {
      return List.of();
    }
    final List<PolicySpec> out = new ArrayList<>();
    for (JsonToken e = json.next(); e != JsonToken.END_ARRAY; e = json.next()) {
      if (e == JsonToken.VALUE_NULL) {
        out.add(PolicySpec.builder("").build());
        continue;
      }
      if (e != JsonToken.START_OBJECT) {
        json.typeError(
            "json: cannot unmarshal "
                + kindOf(e)
                + " into Go struct field PolicySnapshot.policies of type PolicySpec");
        json.skip();
        continue;
      }
      out.add(policy(json));
    }
    return out;
  }

  private static PolicySpec policy(final StrictJson json) throws JsonDecodeException {
    final PolicySpec.Builder b = PolicySpec.builder("");
    StrategySpec strategy = null;
    LoadAwareSpec loadAware = null;
    final String p = "PolicySnapshot.policies.";
    for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
      final String key = json.fieldName();
      final JsonToken v = json.next();
      switch (StrictJson.match(key, POLICY)) {
        case 0 -> {
          final String s = json.string(v, p + "namespace");
          if (s != null) {
            b.namespace(s);
          }
        }
        case 1 -> {
          final Long n =
              json.integer(v, p + "evictionTTL", "time.Duration", Long.MIN_VALUE, Long.MAX_VALUE);
          if (n != null) {
            b.evictionTTLNanos(n);
          }
        }
        case 2 -> {
          final Long n =
              json.integer(
                  v, p + "minimumPrefixTokens", "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
          if (n != null) {
            b.minimumPrefixTokens(n.intValue());
          }
        }
        case 3 -> {
          final Long n =
              json.integer(
                  v, p + "minimumMatchedTokens", "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
          if (n != null) {
            b.minimumMatchedTokens(n.intValue());
          }
        }
        case 4 -> b.routingFloorScore(json.float32(v, p + "routingFloorScore"));
        case 5 -> {
          final Long n =
              json.integer(v, p + "lookupTimeoutMs", "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
          if (n != null) {
            b.lookupTimeoutMs(n.intValue());
          }
        }
        case 6 -> b.affinityRouting(json.bool(v, p + "affinityRouting"));
        case 7 -> {
          final String s = json.string(v, p + "eviction");
          if (s != null) {
            b.eviction(s);
          }
        }
        case 8 -> strategy = strategy(json, v, strategy);
        case 9 -> loadAware = loadAware(json, v, loadAware);
        case 10 -> {
          final Long n =
              json.integer(v, p + "maxReplicas", "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
          if (n != null) {
            b.maxReplicas(n.intValue());
          }
        }
        default -> json.unknownField(key);
      }
    }
    return b.strategy(strategy).loadAwareRouting(loadAware).build();
  }

  /**
   * A {@code loadAwareRouting} object (an inference-cache extension of the v7 body; {@code null}
   * means absent: off); a repeated key decodes into the existing object.
   */
  private static LoadAwareSpec loadAware(
      final StrictJson json, final JsonToken t, final LoadAwareSpec existing)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    final String p = "PolicySnapshot.policies.loadAwareRouting";
    if (!opens(json, t, JsonToken.START_OBJECT, p, "LoadAwareRouting")) {
      return existing;
    }
    Integer tokens = existing == null ? null : existing.pressureTokens();
    Float bound = existing == null ? null : existing.pressureBound();
    Integer ranked = existing == null ? null : existing.rankedReplicas();
    Float perHint = existing == null ? null : existing.hintPressure();
    CostModelSpec cost = existing == null ? null : existing.costModel();
    for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
      final String key = json.fieldName();
      final JsonToken v = json.next();
      switch (StrictJson.match(key, LOAD_AWARE)) {
        case 0 -> tokens = int32(json, v, p + ".pressureTokens");
        case 1 -> bound = json.float32(v, p + ".pressureBound");
        case 2 -> ranked = int32(json, v, p + ".rankedReplicas");
        case 3 -> perHint = json.float32(v, p + ".hintPressure");
        case 4 -> cost = costModel(json, v, cost);
        default -> json.unknownField(key);
      }
    }
    return new LoadAwareSpec(tokens, bound, ranked, perHint, cost);
  }

  /**
   * A {@code loadAwareRouting.costModel} object ({@code null} means absent: the load-aware rules
   * without the cost model); a repeated key decodes into the existing object.
   */
  private static CostModelSpec costModel(
      final StrictJson json, final JsonToken t, final CostModelSpec existing)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    final String p = "PolicySnapshot.policies.loadAwareRouting.costModel";
    if (!opens(json, t, JsonToken.START_OBJECT, p, "CostModel")) {
      return existing;
    }
    Float prefill = existing == null ? null : existing.prefillTokensPerSecond();
    Float request = existing == null ? null : existing.requestSeconds();
    Integer slots = existing == null ? null : existing.slots();
    for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
      final String key = json.fieldName();
      final JsonToken v = json.next();
      switch (StrictJson.match(key, COST_MODEL)) {
        case 0 -> prefill = json.float32(v, p + ".prefillTokensPerSecond");
        case 1 -> request = json.float32(v, p + ".requestSeconds");
        case 2 -> slots = int32(json, v, p + ".slots");
        default -> json.unknownField(key);
      }
    }
    return new CostModelSpec(prefill, request, slots);
  }

  private static Integer int32(final StrictJson json, final JsonToken v, final String field)
      throws JsonDecodeException {
    final Long n = json.integer(v, field, "int32", Integer.MIN_VALUE, Integer.MAX_VALUE);
    return n == null ? null : n.intValue();
  }

  /** A {@code strategy} object; like Go, a repeated key decodes into the existing struct. */
  private static StrategySpec strategy(
      final StrictJson json, final JsonToken t, final StrategySpec existing)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    final String p = "PolicySnapshot.policies.strategy";
    if (!opens(json, t, JsonToken.START_OBJECT, p, "Strategy")) {
      return existing;
    }
    Boolean chain = existing == null ? null : existing.enableChainMatching();
    Boolean require = existing == null ? null : existing.requireChain();
    Boolean hot = existing == null ? null : existing.enableTenantHot();
    for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
      final String key = json.fieldName();
      final JsonToken v = json.next();
      switch (StrictJson.match(key, STRATEGY)) {
        case 0 -> chain = json.bool(v, p + ".enableChainMatching");
        case 1 -> require = json.bool(v, p + ".requireChain");
        case 2 -> hot = json.bool(v, p + ".enableTenantHot");
        default -> json.unknownField(key);
      }
    }
    return new StrategySpec(chain, require, hot);
  }

  private static List<TenantSpec> tenants(final StrictJson json, final JsonToken t)
      throws JsonDecodeException {
    if (t == JsonToken.VALUE_NULL) {
      return List.of();
    }
    if (!opens(json, t, JsonToken.START_ARRAY, "PolicySnapshot.tenants", "[]TenantSpec")) {
      return List.of();
    }
    final List<TenantSpec> out = new ArrayList<>();
    final String p = "PolicySnapshot.tenants.";
    for (JsonToken e = json.next(); e != JsonToken.END_ARRAY; e = json.next()) {
      if (e == JsonToken.VALUE_NULL) {
        out.add(new TenantSpec("", 0, null));
        continue;
      }
      if (e != JsonToken.START_OBJECT) {
        json.typeError(
            "json: cannot unmarshal "
                + kindOf(e)
                + " into Go struct field PolicySnapshot.tenants of type TenantSpec");
        json.skip();
        continue;
      }
      String id = "";
      long max = 0;
      String mode = null;
      for (JsonToken k = json.next(); k != JsonToken.END_OBJECT; k = json.next()) {
        final String key = json.fieldName();
        final JsonToken v = json.next();
        switch (StrictJson.match(key, TENANT)) {
          case 0 -> {
            final String s = json.string(v, p + "tenantID");
            if (s != null) {
              id = s;
            }
          }
          case 1 -> {
            final Long n =
                json.integer(v, p + "maxIndexEntries", "int64", Long.MIN_VALUE, Long.MAX_VALUE);
            if (n != null) {
              max = n;
            }
          }
          case 2 -> {
            final String s = json.string(v, p + "isolationMode");
            if (s != null) {
              mode = s;
            }
          }
          default -> json.unknownField(key);
        }
      }
      out.add(new TenantSpec(id, max, mode));
    }
    return out;
  }

  /**
   * The canonical body of {@code snapshot} as the Go controller writes it (no newline), e.g. {@code
   * {"version":7,"policies":[{"namespace":"team-a","routingFloorScore":0}],"tenants":[{"tenantID":"tenant-a","maxIndexEntries":10}]}}.
   */
  public static String write(final PolicySnapshot snapshot) {
    final StringBuilder out = new StringBuilder(128);
    out.append("{\"version\":").append(snapshot.version()).append(",\"policies\":[");
    boolean first = true;
    for (final PolicySpec p : snapshot.policies()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append("{\"namespace\":");
      GoJson.string(out, p.namespace() == null ? "" : p.namespace());
      if (p.evictionTTLNanos() != 0) {
        out.append(",\"evictionTTL\":").append(p.evictionTTLNanos());
      }
      if (p.minimumPrefixTokens() != 0) {
        out.append(",\"minimumPrefixTokens\":").append(p.minimumPrefixTokens());
      }
      if (p.minimumMatchedTokens() != 0) {
        out.append(",\"minimumMatchedTokens\":").append(p.minimumMatchedTokens());
      }
      if (p.routingFloorScore() != null) {
        out.append(",\"routingFloorScore\":");
        GoJson.float32(out, p.routingFloorScore());
      }
      if (p.lookupTimeoutMs() != 0) {
        out.append(",\"lookupTimeoutMs\":").append(p.lookupTimeoutMs());
      }
      if (p.affinityRouting() != null) {
        out.append(",\"affinityRouting\":").append(p.affinityRouting().booleanValue());
      }
      if (p.eviction() != null && !p.eviction().isEmpty()) {
        out.append(",\"eviction\":");
        GoJson.string(out, p.eviction());
      }
      if (p.strategy() != null) {
        out.append(",\"strategy\":{");
        final StrategySpec s = p.strategy();
        boolean firstMember = true;
        firstMember = member(out, "enableChainMatching", s.enableChainMatching(), firstMember);
        firstMember = member(out, "requireChain", s.requireChain(), firstMember);
        member(out, "enableTenantHot", s.enableTenantHot(), firstMember);
        out.append('}');
      }
      if (p.loadAwareRouting() != null) {
        final LoadAwareSpec la = p.loadAwareRouting();
        out.append(",\"loadAwareRouting\":{");
        String sep = "";
        if (la.pressureTokens() != null) {
          out.append("\"pressureTokens\":").append(la.pressureTokens().intValue());
          sep = ",";
        }
        if (la.pressureBound() != null) {
          out.append(sep).append("\"pressureBound\":");
          GoJson.float32(out, la.pressureBound());
          sep = ",";
        }
        if (la.rankedReplicas() != null) {
          out.append(sep).append("\"rankedReplicas\":").append(la.rankedReplicas().intValue());
          sep = ",";
        }
        if (la.hintPressure() != null) {
          out.append(sep).append("\"hintPressure\":");
          GoJson.float32(out, la.hintPressure());
          sep = ",";
        }
        if (la.costModel() != null) {
          out.append(sep).append("\"costModel\":");
          costModel(out, la.costModel());
        }
        out.append('}');
      }
      if (p.maxReplicas() != 0) {
        out.append(",\"maxReplicas\":").append(p.maxReplicas());
      }
      out.append('}');
    }
    out.append(']');
    if (!snapshot.tenants().isEmpty()) {
      out.append(",\"tenants\":[");
      first = true;
      for (final TenantSpec t : snapshot.tenants()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append("{\"tenantID\":");
        GoJson.string(out, t.tenantID() == null ? "" : t.tenantID());
        out.append(",\"maxIndexEntries\":").append(t.maxIndexEntries());
        if (t.isolationMode() != null && !t.isolationMode().isEmpty()) {
          out.append(",\"isolationMode\":");
          GoJson.string(out, t.isolationMode());
        }
        out.append('}');
      }
      out.append(']');
    }
    return out.append('}').toString();
  }

  /** A {@code costModel} object, its written members only. */
  private static void costModel(final StringBuilder out, final CostModelSpec cm) {
    out.append('{');
    String sep = "";
    if (cm.prefillTokensPerSecond() != null) {
      out.append("\"prefillTokensPerSecond\":");
      GoJson.float32(out, cm.prefillTokensPerSecond());
      sep = ",";
    }
    if (cm.requestSeconds() != null) {
      out.append(sep).append("\"requestSeconds\":");
      GoJson.float32(out, cm.requestSeconds());
      sep = ",";
    }
    if (cm.slots() != null) {
      out.append(sep).append("\"slots\":").append(cm.slots().intValue());
    }
    out.append('}');
  }

  private static boolean member(
      final StringBuilder out, final String name, final Boolean value, final boolean first) {
    if (value == null) {
      return first;
    }
    if (!first) {
      out.append(',');
    }
    out.append('"').append(name).append("\":").append(value.booleanValue());
    return false;
  }
}
