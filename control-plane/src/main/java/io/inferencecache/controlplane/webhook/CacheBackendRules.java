package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.CacheType;
import io.inferencecache.controlplane.k8s.model.CacheBackend.EngineRuntime;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationMode;
import io.inferencecache.controlplane.k8s.model.CacheBackend.IntegrationRole;
import io.inferencecache.controlplane.k8s.model.CacheBackend.Ownership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SecretKeySelector;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CacheBackend's own admission rules, in the order they run; each adds {@link FieldError}s and
 * never throws. The cross-object rule (one owner per cache domain) lives in {@link
 * CacheBackendValidator}.
 */
final class CacheBackendRules {
  /** The only key an engineSelector may carry. */
  static final String CACHE_DOMAIN = "inferencecache.io/cache-domain";

  /** Annotation selecting the LMCache kernel check mode. */
  static final String KERNEL_CHECK = "inferencecache.io/lmcache-kernel-check";

  private static final Set<String> KERNEL_CHECK_MODES =
      Set.of("", "auto", "report-only", "strict", "off");

  private static final Pattern LABEL_VALUE =
      Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  private static final Pattern DIGEST_IMAGE = Pattern.compile("^[^\\s@]+@sha256:[a-f0-9]{64}$");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern CONFIG_MAP_KEY = Pattern.compile("^[-._a-zA-Z0-9]+$");
  private static final Pattern ENV_NAME = Pattern.compile("^[-._a-zA-Z][-._a-zA-Z0-9]*$");
  private static final Pattern SERVICE_DNS =
      Pattern.compile(
          "^[a-z0-9]([-a-z0-9]*[a-z0-9])?\\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\\.svc(\\.cluster\\.local)?$");

  /** Engine KV-event port and MP HTTP port: a PodLocal server may take neither. */
  private static final Set<Integer> POD_LOCAL_RESERVED_PORTS = Set.of(5557, 8080);

  private static final Quantity ONE_GI = Quantity.fromString("1Gi");

  private CacheBackendRules() {}

  /**
   * Every intrinsic rule of {@code backend} in namespace {@code namespace} except the
   * engine-selector rule, which {@link CacheBackendValidator} runs on every create and update.
   */
  static List<FieldError> all(final CacheBackend backend, final String namespace) {
    final List<FieldError> e = new ArrayList<>();
    final CacheBackend.Spec spec = backend.getSpec();
    if (spec == null) {
      return e;
    }
    cacheHierarchy(spec, e);
    lmCacheTopology(spec, e);
    unimplementedRedisFeatures(spec, e);
    crossNamespaceEndpoint(spec, namespace, e);
    eventsOnly(spec, e);
    hiCache(spec, e);
    kernelCheckAnnotation(backend, e);
    lmCacheRole(spec, e);
    runtimeAdapter(spec, e);
    engineOverrides(spec, e);
    return e;
  }

  /**
   * The engine selector: empty, or exactly {@code inferencecache.io/cache-domain} = a label value.
   */
  static void engineSelectorDomain(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec == null) {
      return;
    }
    final Map<String, String> labels = matchLabels(spec);
    if (labels.isEmpty()) {
      return;
    }
    if (labels.size() != 1 || !labels.containsKey(CACHE_DOMAIN)) {
      e.add(
          FieldError.invalid(
              "spec.engineSelector.matchLabels",
              render(labels),
              "must contain exactly one key, " + CACHE_DOMAIN));
      return;
    }
    final String value = labels.get(CACHE_DOMAIN);
    if (value == null
        || value.isEmpty()
        || value.length() > 63
        || !LABEL_VALUE.matcher(value).matches()) {
      e.add(
          FieldError.invalid(
              "spec.engineSelector.matchLabels[" + CACHE_DOMAIN + "]",
              value,
              "must be a non-empty label value (at most 63 characters: alphanumerics, '-', '_' or"
                  + " '.', starting and ending with an alphanumeric)"));
    }
  }

  private static void cacheHierarchy(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.lmCache != null && effectiveType(spec) != CacheType.LMCACHE) {
      e.add(FieldError.forbidden("spec.lmCache", "lmCache may only be set with type LMCache"));
    }
    final CacheBackend.RemoteStorage rs = spec.remoteStorage;
    if (rs == null) {
      return;
    }
    if (rs.provider == null) {
      e.add(FieldError.required("spec.remoteStorage.provider", "provider is required"));
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
        resources("spec.remoteStorage.redis.resources", redis.resources, e);
      }
      final CacheBackend.RedisAuthentication auth = redis.authentication;
      if (auth != null) {
        if (!typedLMCache(spec)) {
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

  private static void lmCacheTopology(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveMode(spec) == IntegrationMode.EVENTS_ONLY) {
      if (spec.lmCache != null) {
        e.add(
            FieldError.forbidden(
                "spec.lmCache", "EventsOnly routes on KV events only; it runs no LMCache server"));
      }
      return;
    }
    if (effectiveType(spec) != CacheType.LMCACHE) {
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
      if (matchLabels(spec).isEmpty()) {
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

  private static void unimplementedRedisFeatures(
      final CacheBackend.Spec spec, final List<FieldError> e) {
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

  private static void crossNamespaceEndpoint(
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

  private static void eventsOnly(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveMode(spec) != IntegrationMode.EVENTS_ONLY) {
      return;
    }
    if (effectiveType(spec) != CacheType.LMCACHE) {
      e.add(
          FieldError.forbidden(
              "spec.integration.mode", "EventsOnly needs type LMCache (or no type)"));
    }
    if (spec.remoteStorage != null) {
      e.add(
          FieldError.forbidden(
              "spec.remoteStorage", "EventsOnly routes on KV events only; it has no store"));
    }
  }

  private static void hiCache(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveType(spec) != CacheType.SGLANG_HICACHE) {
      if (spec.hiCache != null) {
        e.add(
            FieldError.forbidden(
                "spec.hiCache", "hiCache may only be set with type SGLangHiCache"));
      }
      return;
    }
    if (spec.runtime != EngineRuntime.SGLANG) {
      e.add(FieldError.invalid("spec.runtime", spec.runtime, "SGLangHiCache needs runtime SGLang"));
    }
    if (matchLabels(spec).isEmpty()) {
      e.add(
          FieldError.required(
              "spec.engineSelector.matchLabels", "SGLangHiCache configures the selected pods"));
    }
    if (effectiveMode(spec) != IntegrationMode.OFFLOAD) {
      e.add(FieldError.forbidden("spec.integration.mode", "SGLangHiCache supports Offload only"));
    }
    if (spec.integration != null
        && spec.integration.role != null
        && spec.integration.role != IntegrationRole.READ_WRITE) {
      e.add(
          FieldError.notSupported(
              "spec.integration.role",
              roleName(spec.integration.role),
              "supported values: ReadWrite"));
    }
    if (spec.integration != null && Boolean.FALSE.equals(spec.integration.failOpen)) {
      e.add(FieldError.forbidden("spec.integration.failOpen", "SGLangHiCache always fails open"));
    }
    final CacheBackend.HiCache h = spec.hiCache;
    if (h == null) {
      e.add(FieldError.required("spec.hiCache", "type SGLangHiCache needs hiCache"));
      return;
    }
    final boolean hasRatio = h.ratio != null && !h.ratio.isEmpty();
    if ((h.sizeGB != null) == hasRatio) {
      e.add(FieldError.invalid("spec.hiCache", "object", "set exactly one of sizeGB and ratio"));
    }
    if (hasRatio) {
      boolean ok;
      try {
        final double r = Double.parseDouble(h.ratio);
        ok = Double.isFinite(r) && r > 0;
      } catch (NumberFormatException notANumber) {
        ok = false;
      }
      if (!ok) {
        e.add(FieldError.invalid("spec.hiCache.ratio", h.ratio, "must be a finite number > 0"));
      }
    }
  }

  private static void kernelCheckAnnotation(final CacheBackend backend, final List<FieldError> e) {
    final Map<String, String> a =
        backend.getMetadata() == null ? null : backend.getMetadata().getAnnotations();
    final String value = a == null ? null : a.get(KERNEL_CHECK);
    if (value != null && !KERNEL_CHECK_MODES.contains(value)) {
      e.add(
          FieldError.notSupported(
              "metadata.annotations[" + KERNEL_CHECK + "]",
              value,
              "supported values: auto, report-only, strict, off"));
    }
  }

  private static void lmCacheRole(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (effectiveType(spec) == CacheType.LMCACHE
        && spec.integration != null
        && spec.integration.role != null
        && spec.integration.role != IntegrationRole.READ_WRITE) {
      e.add(
          FieldError.notSupported(
              "spec.integration.role",
              roleName(spec.integration.role),
              "LMCache supports ReadWrite only"));
    }
  }

  /** Runs only when {@code spec.type} is set: the (runtime, type) pair must have an adapter. */
  private static void runtimeAdapter(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.type == null || spec.runtime == null) {
      return;
    }
    if (RuntimeAdapter.select(spec).isEmpty()) {
      e.add(
          FieldError.invalid(
              "spec.runtime",
              spec.runtime == EngineRuntime.SGLANG ? "SGLang" : "VLLM",
              "no engine adapter for this runtime and type; supported: "
                  + RuntimeAdapter.SUPPORTED));
    }
  }

  /** Runs only when {@code spec.type} is set: overrides must be well formed and not reserved. */
  private static void engineOverrides(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.type == null || spec.integration == null || spec.integration.engineOverrides == null) {
      return;
    }
    final Optional<RuntimeAdapter> found = RuntimeAdapter.select(spec);
    if (found.isEmpty()) {
      return;
    }
    final RuntimeAdapter adapter = found.get();
    final CacheBackend.EngineOverrides o = spec.integration.engineOverrides;
    final String p = "spec.integration.engineOverrides";
    reservedArgs(p + ".args", o.args, adapter, e);
    reservedArgs(p + ".suppressArgs", o.suppressArgs, adapter, e);
    if (o.env != null) {
      for (int i = 0; i < o.env.size(); i++) {
        env(p + ".env[" + i + "]", o.env.get(i), adapter, e);
      }
    }
    if (o.suppressEnv != null) {
      for (int i = 0; i < o.suppressEnv.size(); i++) {
        if (adapter.reservedEnv().contains(o.suppressEnv.get(i))) {
          e.add(reservedEnv(p + ".suppressEnv[" + i + "]", o.suppressEnv.get(i), adapter));
        }
      }
    }
  }

  private static void reservedArgs(
      final String field,
      final List<String> args,
      final RuntimeAdapter adapter,
      final List<FieldError> e) {
    if (args == null || args.isEmpty()) {
      return;
    }
    final String token = RuntimeAdapter.flagToken(args.get(0));
    if (adapter.reservedArgs().contains(token)) {
      e.add(
          FieldError.forbidden(
              field,
              "flag "
                  + token
                  + " is set by the "
                  + adapter.runtimeId()
                  + " engine injection and cannot be overridden"));
    }
    for (int i = 1; i < args.size(); i++) {
      final String t = RuntimeAdapter.flagToken(args.get(i));
      if (t.startsWith("--") && adapter.reservedArgs().contains(t)) {
        e.add(
            FieldError.forbidden(
                field + "[" + i + "]",
                "flag "
                    + t
                    + " is set by the "
                    + adapter.runtimeId()
                    + " engine injection and cannot be overridden"));
      }
    }
  }

  private static void env(
      final String field,
      final V1EnvVar v,
      final RuntimeAdapter adapter,
      final List<FieldError> e) {
    if (v.getName() == null || v.getName().isEmpty()) {
      e.add(FieldError.required(field + ".name", "name is required"));
      return;
    }
    if (!ENV_NAME.matcher(v.getName()).matches()) {
      e.add(
          FieldError.invalid(
              field + ".name",
              v.getName(),
              "a valid environment variable name must consist of alphabetic characters, digits,"
                  + " '_', '-', or '.', and must not start with a digit"));
    }
    if (adapter.reservedEnv().contains(v.getName())) {
      e.add(reservedEnv(field + ".name", v.getName(), adapter));
    }
    final V1EnvVarSource from = v.getValueFrom();
    if (from != null) {
      if (v.getValue() != null && !v.getValue().isEmpty()) {
        e.add(
            FieldError.invalid(
                field + ".valueFrom", "object", "may not be specified when `value` is not empty"));
      }
      int sources = 0;
      sources += from.getFieldRef() != null ? 1 : 0;
      sources += from.getResourceFieldRef() != null ? 1 : 0;
      sources += from.getConfigMapKeyRef() != null ? 1 : 0;
      sources += from.getSecretKeyRef() != null ? 1 : 0;
      if (sources != 1) {
        e.add(
            FieldError.invalid(
                field + ".valueFrom",
                "object",
                "must specify exactly one of fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef"));
      }
    }
  }

  private static FieldError reservedEnv(
      final String field, final String name, final RuntimeAdapter adapter) {
    return FieldError.forbidden(
        field,
        "environment variable "
            + name
            + " is set by the "
            + adapter.runtimeId()
            + " engine injection and cannot be overridden");
  }

  // ---- helpers ----

  static Map<String, String> matchLabels(final CacheBackend.Spec spec) {
    return spec.engineSelector == null || spec.engineSelector.matchLabels == null
        ? Map.of()
        : spec.engineSelector.matchLabels;
  }

  static CacheType effectiveType(final CacheBackend.Spec spec) {
    return spec.type == null ? CacheType.LMCACHE : spec.type;
  }

  static IntegrationMode effectiveMode(final CacheBackend.Spec spec) {
    return spec.integration == null || spec.integration.mode == null
        ? IntegrationMode.OFFLOAD
        : spec.integration.mode;
  }

  private static boolean typedLMCache(final CacheBackend.Spec spec) {
    return effectiveType(spec) == CacheType.LMCACHE
        && spec.lmCache != null
        && spec.lmCache.topology != null;
  }

  private static String roleName(final IntegrationRole role) {
    return switch (role) {
      case READ_ONLY -> "ReadOnly";
      case WRITE_ONLY -> "WriteOnly";
      case READ_WRITE -> "ReadWrite";
    };
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
    resources(field, r, e);
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

  /** Shape rules of any ResourceRequirements: no claims, no negatives, limits ≥ requests. */
  static void resources(
      final String field, final V1ResourceRequirements r, final List<FieldError> e) {
    if (r.getClaims() != null && !r.getClaims().isEmpty()) {
      e.add(FieldError.forbidden(field + ".claims", "resource claims are not supported"));
    }
    for (final String kind : new String[] {"requests", "limits"}) {
      final Map<String, Quantity> m = kind.equals("requests") ? r.getRequests() : r.getLimits();
      if (m == null) {
        continue;
      }
      m.forEach(
          (name, q) -> {
            if (q != null && q.getNumber().signum() < 0) {
              e.add(
                  FieldError.invalid(
                      field + "." + kind + "[" + name + "]",
                      q.toSuffixedString(),
                      "must be greater than or equal to 0"));
            }
          });
    }
    if (r.getRequests() != null && r.getLimits() != null) {
      r.getRequests()
          .forEach(
              (name, q) -> {
                final Quantity limit = r.getLimits().get(name);
                if (q != null && limit != null && q.getNumber().compareTo(limit.getNumber()) > 0) {
                  e.add(
                      FieldError.invalid(
                          field + ".requests[" + name + "]",
                          q.toSuffixedString(),
                          "must be less than or equal to "
                              + name
                              + " limit of "
                              + limit.toSuffixedString()));
                }
              });
    }
  }

  private static String render(final Map<String, String> labels) {
    return new java.util.TreeMap<>(labels).toString();
  }
}
