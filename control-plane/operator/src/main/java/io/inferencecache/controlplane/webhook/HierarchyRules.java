package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.CacheType;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationMode;
import io.inferencecache.controlplane.k8s.model.CacheBackend.Ownership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CacheBackend's cache-hierarchy rules: the remote store (provider, ownership and the fields
 * each ownership allows, credentials, unsupported Redis features, cross-namespace endpoints) and
 * the LMCache server topology (PodLocal or NodeLocal, pinned images, ports, memory for L1).
 */
final class HierarchyRules {
  private static final Pattern DIGEST_IMAGE = Pattern.compile("^[^\\s@]+@sha256:[a-f0-9]{64}$");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern CONFIG_MAP_KEY = Pattern.compile("^[-._a-zA-Z0-9]+$");
  private static final Pattern SERVICE_DNS =
      Pattern.compile(
          "^[a-z0-9]([-a-z0-9]*[a-z0-9])?\\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\\.svc(\\.cluster\\.local)?$");

  /** Engine KV-event port and MP HTTP port: a PodLocal server may take neither. */
  private static final Set<Integer> POD_LOCAL_RESERVED_PORTS = Set.of(5557, 8080);

  private static final Quantity ONE_GI = Quantity.fromString("1Gi");

  private HierarchyRules() {}

  /** The store: lmCache only with LMCache, provider and ownership, per-ownership fields. */
  static void cacheHierarchy(
      final CacheBackend.Spec spec, final String rawProvider, final List<FieldError> e) {
    if (spec.lmCache != null && CacheBackendRules.effectiveType(spec) != CacheType.LMCACHE) {
      e.add(FieldError.forbidden("spec.lmCache", "lmCache may only be set with type LMCache"));
    }
    final CacheBackend.RemoteStorage rs = spec.remoteStorage;
    if (rs == null) {
      return;
    }
    if (rs.provider == null) {
      if (rawProvider == null || rawProvider.isEmpty()) {
        e.add(FieldError.required("spec.remoteStorage.provider", "provider is required"));
      } else {
        e.add(
            FieldError.invalid(
                "spec.remoteStorage.provider",
                rawProvider,
                "unknown remote storage provider; supported: Redis"));
      }
    }
    if (rs.ownership == null) {
      e.add(FieldError.required("spec.remoteStorage.ownership", "ownership is required"));
      return;
    }
    final boolean managed = rs.ownership == Ownership.MANAGED;
    final String endpoint = rs.endpoint == null ? "" : rs.endpoint.strip();
    if (managed && !endpoint.isEmpty()) {
      e.add(
          FieldError.forbidden(
              "spec.remoteStorage.endpoint",
              "a Managed store's endpoint is published by the controller in status"));
    }
    if (!managed) {
      if (endpoint.isEmpty()) {
        e.add(
            FieldError.required(
                "spec.remoteStorage.endpoint", "an External store needs its host:port"));
      } else {
        final String problem = hostPortProblem(rs.endpoint);
        if (problem != null) {
          e.add(FieldError.invalid("spec.remoteStorage.endpoint", rs.endpoint, problem));
        }
      }
      if (rs.workload != null) {
        e.add(
            FieldError.forbidden(
                "spec.remoteStorage.workload", "workload may only be set with ownership Managed"));
      }
    }
    final CacheBackend.Redis redis = rs.redis;
    if (redis != null) {
      if (!managed && redis.image != null) {
        e.add(
            FieldError.forbidden(
                "spec.remoteStorage.redis.image", "image may only be set with ownership Managed"));
      }
      if (!managed && redis.resources != null) {
        e.add(
            FieldError.forbidden(
                "spec.remoteStorage.redis.resources",
                "resources may only be set with ownership Managed"));
      }
      if (managed && redis.resources != null) {
        ResourceRules.resources("spec.remoteStorage.redis.resources", redis.resources, e);
      }
      final CacheBackend.RedisAuthentication auth = redis.authentication;
      if (auth != null) {
        if (!CacheBackendRules.typedLMCache(spec)) {
          e.add(
              FieldError.forbidden(
                  "spec.remoteStorage.redis.authentication",
                  "authentication needs type LMCache with lmCache.topology (the multiprocess"
                      + " adapter)"));
        }
        if (managed && auth.username != null) {
          e.add(
              FieldError.forbidden(
                  "spec.remoteStorage.redis.authentication.username",
                  "a Managed store has no username"));
        }
        if (auth.password == null) {
          e.add(
              FieldError.required(
                  "spec.remoteStorage.redis.authentication.password", "password is required"));
        } else {
          secretKey("spec.remoteStorage.redis.authentication.password", auth.password, e);
        }
        if (auth.username != null) {
          secretKey("spec.remoteStorage.redis.authentication.username", auth.username, e);
        }
      }
    }
  }

  static void lmCacheTopology(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (CacheBackendRules.effectiveMode(spec) == IntegrationMode.EVENTS_ONLY) {
      if (spec.lmCache != null) {
        e.add(
            FieldError.forbidden(
                "spec.lmCache", "EventsOnly routes on KV events only; it runs no LMCache server"));
      }
      return;
    }
    if (CacheBackendRules.effectiveType(spec) != CacheType.LMCACHE) {
      return;
    }
    final CacheBackend.LMCacheEngine lm = spec.lmCache;
    if (lm == null) {
      e.add(FieldError.required("spec.lmCache", "type LMCache in Offload mode needs lmCache"));
      return;
    }
    if (lm.topology == null) {
      e.add(FieldError.required("spec.lmCache.topology", "PodLocal or NodeLocal"));
      return;
    }
    final boolean podLocal = lm.topology == CacheBackend.Topology.POD_LOCAL;
    if (podLocal && lm.nodeLocal != null) {
      e.add(FieldError.forbidden("spec.lmCache.nodeLocal", "topology is PodLocal"));
    }
    if (!podLocal && lm.podLocal != null) {
      e.add(FieldError.forbidden("spec.lmCache.podLocal", "topology is NodeLocal"));
    }
    if (podLocal) {
      if (lm.podLocal == null || lm.podLocal.server == null) {
        e.add(FieldError.required("spec.lmCache.podLocal.server", "the per-pod server"));
        return;
      }
      final CacheBackend.PodLocalServer s = lm.podLocal.server;
      final String p = "spec.lmCache.podLocal.server";
      image(p + ".image", s.image, e);
      if (s.port != null && POD_LOCAL_RESERVED_PORTS.contains(s.port)) {
        e.add(
            FieldError.invalid(
                p + ".port",
                s.port,
                "5557 is the engine's KV-event port and 8080 the server's HTTP port"));
      }
      serverResources(p + ".resources", s.resources, s.l1Capacity, false, e);
    } else {
      if (CacheBackendRules.matchLabels(spec).isEmpty()) {
        e.add(
            FieldError.required(
                "spec.engineSelector.matchLabels",
                "NodeLocal places servers on the nodes of the selected engine pods"));
      }
      if (lm.nodeLocal == null || lm.nodeLocal.server == null) {
        e.add(FieldError.required("spec.lmCache.nodeLocal.server", "the per-node server"));
        return;
      }
      final CacheBackend.NodeLocalServer s = lm.nodeLocal.server;
      final String p = "spec.lmCache.nodeLocal.server";
      image(p + ".image", s.image, e);
      if (s.port != null && s.port.equals(s.httpPort)) {
        e.add(
            FieldError.invalid(
                p + ".httpPort", s.httpPort, "must differ from port (both bind the node)"));
      }
      final Integer idle = lm.nodeLocal.idleRetentionSeconds;
      if (idle != null && (idle < 0 || idle > 86400)) {
        e.add(
            FieldError.invalid(
                "spec.lmCache.nodeLocal.idleRetentionSeconds", idle, "must be 0..86400"));
      }
      serverResources(p + ".resources", s.resources, s.l1Capacity, true, e);
    }
  }

  static void unimplementedRedisFeatures(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.remoteStorage == null || spec.remoteStorage.redis == null) {
      return;
    }
    final String why = "the pinned LMCache 0.5.3 resp adapter does not support it";
    if (spec.remoteStorage.redis.tls != null) {
      e.add(FieldError.forbidden("spec.remoteStorage.redis.tls", why));
    }
    if (spec.remoteStorage.redis.database != null) {
      e.add(FieldError.forbidden("spec.remoteStorage.redis.database", why));
    }
  }

  static void crossNamespaceEndpoint(
      final CacheBackend.Spec spec, final String namespace, final List<FieldError> e) {
    final CacheBackend.RemoteStorage rs = spec.remoteStorage;
    if (rs == null
        || rs.ownership != Ownership.EXTERNAL
        || rs.endpoint == null
        || Boolean.TRUE.equals(spec.allowCrossNamespace)) {
      return;
    }
    final String endpoint = rs.endpoint.strip();
    final int colon = endpoint.lastIndexOf(':');
    final String host = colon < 0 ? endpoint : endpoint.substring(0, colon);
    final Matcher m = SERVICE_DNS.matcher(host);
    if (m.matches() && !m.group(2).equals(namespace)) {
      e.add(
          FieldError.forbidden(
              "spec.remoteStorage.endpoint",
              "endpoint is a Service in namespace \""
                  + m.group(2)
                  + "\"; set allowCrossNamespace: true to use another namespace's store"));
    }
  }

  private static void image(final String field, final String image, final List<FieldError> e) {
    if (image == null || !DIGEST_IMAGE.matcher(image).matches()) {
      e.add(
          FieldError.invalid(
              field, image, "must be pinned by digest (name@sha256:<64 hex characters>)"));
    }
  }

  private static void secretKey(
      final String field, final V1SecretKeySelector s, final List<FieldError> e) {
    if (s.getName() == null || s.getName().isEmpty()) {
      e.add(FieldError.required(field + ".name", "the Secret's name"));
    } else if (s.getName().length() > 253 || !DNS1123_SUBDOMAIN.matcher(s.getName()).matches()) {
      e.add(FieldError.invalid(field + ".name", s.getName(), "must be a DNS-1123 subdomain"));
    }
    if (s.getKey() == null || s.getKey().isEmpty()) {
      e.add(FieldError.required(field + ".key", "the key in the Secret"));
    } else if (s.getKey().length() > 253
        || !CONFIG_MAP_KEY.matcher(s.getKey()).matches()
        || s.getKey().equals(".")
        || s.getKey().equals("..")) {
      e.add(FieldError.invalid(field + ".key", s.getKey(), "must be a valid Secret key"));
    }
    if (Boolean.TRUE.equals(s.getOptional())) {
      e.add(FieldError.forbidden(field + ".optional", "credentials cannot be optional"));
    }
  }

  /** A bare {@code host:port}: no scheme, no whitespace or control characters, port 1..65535. */
  static String hostPortProblem(final String endpoint) {
    final String s = endpoint.strip();
    if (s.contains("://")) {
      return "must be host:port without a scheme";
    }
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i)) || Character.isISOControl(s.charAt(i))) {
        return "must not contain whitespace or control characters";
      }
    }
    final int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      return "must be host:port";
    }
    final String host = s.substring(0, colon);
    if (host.contains(":") && !(host.startsWith("[") && host.endsWith("]"))) {
      return "an IPv6 host must be in brackets";
    }
    try {
      final int port = Integer.parseInt(s.substring(colon + 1));
      return port >= 1 && port <= 65535 ? null : "port must be 1..65535";
    } catch (NumberFormatException e) {
      return "port must be a number 1..65535";
    }
  }

  private static void serverResources(
      final String field,
      final V1ResourceRequirements r,
      final Quantity l1,
      final boolean nodeLocal,
      final List<FieldError> e) {
    if (r == null) {
      e.add(FieldError.required(field, "the server's resources"));
      return;
    }
    ResourceRules.resources(field, r, e);
    final Quantity cpu = r.getRequests() == null ? null : r.getRequests().get("cpu");
    if (cpu == null || cpu.getNumber().signum() <= 0) {
      e.add(FieldError.required(field + ".requests.cpu", "a positive CPU request"));
    }
    if (l1 != null) {
      final BigDecimal need = l1.getNumber().add(ONE_GI.getNumber());
      for (final String kind : new String[] {"requests", "limits"}) {
        final Map<String, Quantity> m = kind.equals("requests") ? r.getRequests() : r.getLimits();
        final Quantity mem = m == null ? null : m.get("memory");
        if (mem == null || mem.getNumber().compareTo(need) < 0) {
          e.add(
              FieldError.invalid(
                  field + "." + kind + ".memory",
                  mem == null ? "<none>" : mem.toSuffixedString(),
                  "must be at least l1Capacity + 1Gi ("
                      + new Quantity(need, Quantity.Format.BINARY_SI).toSuffixedString()
                      + ")"));
        }
      }
    }
    if (nodeLocal) {
      for (final String kind : new String[] {"requests", "limits"}) {
        final Map<String, Quantity> m = kind.equals("requests") ? r.getRequests() : r.getLimits();
        if (m != null && m.containsKey("nvidia.com/gpu")) {
          e.add(
              FieldError.forbidden(
                  field + "." + kind + "[nvidia.com/gpu]", "a NodeLocal server takes no GPU"));
        }
      }
    }
  }
}
