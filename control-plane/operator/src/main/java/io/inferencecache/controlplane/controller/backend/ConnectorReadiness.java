package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Condition {@code ConnectorReady} and {@code status.connector} of a typed LMCache Offload backend
 * (one with {@code lmCache.topology}), from the engine pods its selector matches. Active pods are
 * those not being deleted and not Succeeded or Failed. A pod is <em>verified</em> when the pod
 * webhook stamped it for this very backend: {@code injected-by} = {@code ns/name}, {@code
 * injected-by-uid} = the CR's UID and {@code injected-generation} = its current generation (a pod
 * injected for an older spec runs an older server configuration). It is <em>covered</em> when
 * verified and its {@code lmcache-mp-server} native sidecar reports ready.
 *
 * <p>No active pod: False/{@code NoEnginePods}; any unverified: Unknown/{@code
 * ConnectorInjectionUnverified}; every server ready and every engine pod Ready: True/{@code
 * ConnectorReady}; otherwise False/{@code MPServersNotReady}. Topology NodeLocal is not supported
 * by this release: False/{@code NodeLocalNotSupported}.
 */
final class ConnectorReadiness {
  static final String TYPE = "ConnectorReady";
  static final String READY = "ConnectorReady";
  static final String NO_PODS = "NoEnginePods";
  static final String UNVERIFIED = "ConnectorInjectionUnverified";
  static final String NOT_READY = "MPServersNotReady";
  static final String NODE_LOCAL = "NodeLocalNotSupported";
  static final String SERVER = "lmcache-mp-server";
  static final String INJECTED_GENERATION = PodStamps.INJECTED_GENERATION;

  /** Pods named in a message before it says "and N more". */
  private static final int NAMED = 5;

  private ConnectorReadiness() {}

  /**
   * The verdict and the connector status it summarises.
   *
   * @param condition the ConnectorReady verdict
   * @param connector {@code status.connector}
   */
  record Result(ReadyRules.Verdict condition, CacheBackend.ConnectorStatus connector) {}

  /** Whether {@code cr} is a typed LMCache Offload backend (it has a multiprocess connector). */
  static boolean applies(final CacheBackend cr) {
    final CacheBackend.Spec spec = Backends.spec(cr);
    return Backends.type(cr) == CacheBackend.CacheType.LMCACHE
        && !Backends.eventsOnly(cr)
        && spec.lmCache != null
        && spec.lmCache.topology != null;
  }

  /** The verdict over {@code matched}, the pods {@code cr}'s selector matches. */
  static Result evaluate(final CacheBackend cr, final List<V1Pod> matched) {
    final CacheBackend.Topology topology = Backends.spec(cr).lmCache.topology;
    final List<V1Pod> active = new ArrayList<>();
    for (final V1Pod p : matched) {
      final String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if (p.getMetadata().getDeletionTimestamp() == null
          && !"Succeeded".equals(phase)
          && !"Failed".equals(phase)) {
        active.add(p);
      }
    }
    active.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    final CacheBackend.ConnectorStatus c = new CacheBackend.ConnectorStatus();
    c.mode = CacheBackend.ConnectorMode.MULTIPROCESS;
    c.topology = topology;
    c.enginePodCoverage = new ArrayList<>();
    final boolean nodeLocal = topology == CacheBackend.Topology.NODE_LOCAL;
    final List<String> unverified = new ArrayList<>();
    final List<String> serverDown = new ArrayList<>();
    final List<String> engineDown = new ArrayList<>();
    int ready = 0;
    int serversReady = 0;
    int covered = 0;
    for (final V1Pod p : active) {
      final String name = p.getMetadata().getName();
      final boolean engineReady = podReady(p);
      final boolean verified = verified(cr, p);
      final boolean serverReady = !nodeLocal && serverReady(p);
      final CacheBackend.EnginePodCoverage e = new CacheBackend.EnginePodCoverage();
      e.name = name;
      e.nodeName = p.getSpec() == null ? null : p.getSpec().getNodeName();
      e.ready = engineReady;
      e.covered = verified && serverReady;
      if (nodeLocal) {
        e.reason = NODE_LOCAL;
      } else if (!verified) {
        e.reason = UNVERIFIED;
        unverified.add(name);
      } else if (!serverReady) {
        e.reason = NOT_READY;
        serverDown.add(name);
      } else {
        e.reason = READY;
      }
      if (verified && serverReady && !engineReady) {
        engineDown.add(name);
      }
      ready += engineReady ? 1 : 0;
      serversReady += serverReady ? 1 : 0;
      covered += e.covered ? 1 : 0;
      c.enginePodCoverage.add(e);
    }
    c.matchedEnginePods = active.size();
    c.readyEnginePods = ready;
    c.desiredServers = nodeLocal ? 0 : active.size();
    c.readyServers = serversReady;
    c.coveredEnginePods = covered;
    c.uncoveredEnginePods = active.size() - covered;
    return new Result(verdict(cr, active.size(), ready, unverified, serverDown, engineDown), c);
  }

  private static ReadyRules.Verdict verdict(
      final CacheBackend cr,
      final int active,
      final int ready,
      final List<String> unverified,
      final List<String> serverDown,
      final List<String> engineDown) {
    final CacheBackend.Topology topology = Backends.spec(cr).lmCache.topology;
    if (topology == CacheBackend.Topology.NODE_LOCAL) {
      return new ReadyRules.Verdict(
          Conditions.FALSE,
          NODE_LOCAL,
          "lmCache.topology NodeLocal (shared LMCache server pods per node) is not supported by"
              + " this release and its engine pods are not injected; use topology PodLocal");
    }
    if (active == 0) {
      return new ReadyRules.Verdict(
          Conditions.FALSE,
          NO_PODS,
          "no active engine pod matches spec.engineSelector; the connector is ready once one runs"
              + " with its lmcache-mp-server");
    }
    if (!unverified.isEmpty()) {
      return new ReadyRules.Verdict(
          Conditions.UNKNOWN,
          UNVERIFIED,
          unverified.size()
              + "/"
              + active
              + " engine pod(s) not injected for generation "
              + cr.generation()
              + " of this CacheBackend ("
              + names(unverified)
              + "); pods created before the backend, before its last spec change or admitted"
              + " without injection (see the controller log) must be recreated, e.g. kubectl"
              + " rollout restart");
    }
    if (serverDown.isEmpty() && ready == active) {
      return new ReadyRules.Verdict(
          Conditions.TRUE,
          READY,
          active + "/" + active + " engine pods Ready with a ready lmcache-mp-server");
    }
    final StringBuilder m = new StringBuilder();
    m.append(active - serverDown.size())
        .append('/')
        .append(active)
        .append(" lmcache-mp-server sidecars ready, ")
        .append(ready)
        .append('/')
        .append(active)
        .append(" engine pods Ready");
    if (!serverDown.isEmpty()) {
      m.append("; server not ready in ").append(names(serverDown));
    }
    if (!engineDown.isEmpty()) {
      m.append("; engine not Ready in ").append(names(engineDown));
    }
    return new ReadyRules.Verdict(Conditions.FALSE, NOT_READY, m.toString());
  }

  /**
   * Sets {@code status.connector} and ConnectorReady in {@code st} from {@code matched}; {@code
   * matched} null (the pod list failed) leaves both as they were.
   */
  static void apply(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final List<V1Pod> matched,
      final long gen,
      final OffsetDateTime now) {
    if (matched == null) {
      return;
    }
    final Result r = evaluate(cr, matched);
    st.connector = r.connector();
    st.conditions = Conditions.setOrRemove(st.conditions, TYPE, r.condition(), gen, now);
  }

  private static boolean verified(final CacheBackend cr, final V1Pod p) {
    final Map<String, String> a = p.getMetadata().getAnnotations();
    final String uid = cr.getMetadata().getUid();
    return a != null
        && uid != null
        && !uid.isEmpty()
        && cr.key().equals(a.get(Backends.INJECTED_BY))
        && uid.equals(a.get(Backends.INJECTED_BY_UID))
        && String.valueOf(cr.generation()).equals(a.get(INJECTED_GENERATION));
  }

  private static boolean podReady(final V1Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return false;
    }
    for (final V1PodCondition c : p.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return Conditions.TRUE.equals(c.getStatus());
      }
    }
    return false;
  }

  private static boolean serverReady(final V1Pod p) {
    final List<V1ContainerStatus> statuses =
        p.getStatus() == null ? null : p.getStatus().getInitContainerStatuses();
    if (statuses == null) {
      return false;
    }
    for (final V1ContainerStatus s : statuses) {
      if (SERVER.equals(s.getName())) {
        return Boolean.TRUE.equals(s.getReady());
      }
    }
    return false;
  }

  private static String names(final List<String> pods) {
    return pods.size() <= NAMED
        ? String.join(", ", pods)
        : String.join(", ", pods.subList(0, NAMED)) + " and " + (pods.size() - NAMED) + " more";
  }
}
