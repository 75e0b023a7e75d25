package io.inferencecache.controlplane.doctor;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.inferencecache.controlplane.k8s.model.ConditionedStatus;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.model.CustomResourceList;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** Checks 5-9: what the custom resources, engine pods and events say. Read-only. */
final class ClusterChecks {
  static final String INJECTED_BY = PodStamps.INJECTED_BY;
  static final String INJECTED_BY_UID = PodStamps.INJECTED_BY_UID;
  static final String INJECTED_REASON = "InjectedByCacheBackend";
  static final String ORPHAN_REASON = "NoMatchingCacheBackend";
  static final Duration STALE_EVENTS = Duration.ofMinutes(2);
  static final Duration ORPHAN_WINDOW = Duration.ofHours(24);

  private final ApiClient client;
  private final CoreV1Api core;
  private final EventsV1Api events;
  private final String namespace;
  private final Duration timeout;
  private final Clock clock;

  /**
   * @param namespace the namespace every list is scoped to, or {@code ""} for all
   */
  ClusterChecks(
      final ApiClient client, final String namespace, final Duration timeout, final Clock clock) {
    this.client = client;
    this.core = new CoreV1Api(client);
    this.events = new EventsV1Api(client);
    this.namespace = namespace;
    this.timeout = timeout;
    this.clock = clock;
  }

  /** The kind's objects in scope, or {@code null} after an API001 finding. */
  private <O extends CustomResource<?, ?>, L extends CustomResourceList<O>> List<O> list(
      final CrdKind<O, L> kind, final String check, final Report report) {
    KubernetesApiResponse<L> r = null;
    String failure;
    try {
      r =
          namespace.isEmpty()
              ? kind.api(client).list()
              : kind.api(client).list(namespace, new ListOptions());
      failure = r.isSuccess() ? null : "HTTP " + r.getHttpStatusCode() + " " + statusMessage(r);
    } catch (IllegalStateException e) { // the generic client's wrapper of a transport failure
      final Throwable why = e.getCause() == null ? e : e.getCause();
      failure = "API server " + client.getBasePath() + " not reached: " + why.getMessage();
    }
    if (failure != null) {
      report.add(
          Code.API001, check, kind.plural(), "list " + kind.plural() + " failed: " + failure);
      return null;
    }
    final List<O> items = new ArrayList<>(r.getObject().getItems());
    items.sort(
        Comparator.comparing(
                (O o) -> o.getMetadata().getNamespace(),
                Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(o -> o.getMetadata().getName()));
    return items;
  }

  private static String statusMessage(final KubernetesApiResponse<?> r) {
    return r.getStatus() == null || r.getStatus().getMessage() == null
        ? ""
        : r.getStatus().getMessage();
  }

  private static String ref(final String kind, final CustomResource<?, ?> o) {
    return kind + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  private static V1Condition condition(final ConditionedStatus s, final String type) {
    if (s == null || s.conditions == null) {
      return null;
    }
    for (final V1Condition c : s.conditions) {
      if (type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  private static Map<String, String> selector(final CacheBackend b) {
    return b.getSpec() == null
            || b.getSpec().engineSelector == null
            || b.getSpec().engineSelector.matchLabels == null
        ? Map.of()
        : b.getSpec().engineSelector.matchLabels;
  }

  private static String labelSelector(final Map<String, String> labels) {
    final StringBuilder b = new StringBuilder();
    new TreeMap<>(labels)
        .forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return b.toString();
  }

  /** The backends in scope (for checks 5, 6 and 9), or {@code null} after API001. */
  List<CacheBackend> backends(final Report report) {
    return list(CacheBackend.CRD, "CacheBackendHealth", report);
  }

  /** Check 5, one backend at a time. */
  void cacheBackendHealth(
      final List<CacheBackend> backends, final boolean configOnly, final Report report) {
    final String check = "CacheBackendHealth";
    for (final CacheBackend b : backends) {
      final String res = ref("cachebackend", b);
      final int before = report.findings().size();
      final CacheBackend.Status st = b.getStatus();
      final V1Condition ready = condition(st, "Ready");
      if (ready == null || !"True".equals(ready.getStatus())) {
        report.add(
            Code.CB001,
            check,
            res,
            ready == null
                ? "no Ready condition yet: the controller has not reconciled this backend"
                : "Ready is "
                    + ready.getStatus()
                    + " ("
                    + ready.getReason()
                    + "): "
                    + ready.getMessage());
      }
      final CacheBackend.RemoteStorage remote =
          b.getSpec() == null ? null : b.getSpec().remoteStorage;
      final boolean external =
          remote != null && remote.ownership == CacheBackend.Ownership.EXTERNAL;
      if (!external) {
        final Map<String, String> sel = selector(b);
        if (!sel.isEmpty()) {
          Integer matched = st == null ? null : st.matchedEnginePods;
          if (matched == null) {
            try {
              matched =
                  core.listNamespacedPod(b.getMetadata().getNamespace())
                      .labelSelector(labelSelector(sel))
                      .execute()
                      .getItems()
                      .size();
            } catch (ApiException e) {
              report.add(
                  Code.API001,
                  check,
                  "pods",
                  "list pods failed: HTTP " + e.getCode() + " " + e.getMessage());
            }
          }
          if (matched != null && matched == 0) {
            report.add(
                Code.CB002,
                check,
                res,
                "engineSelector "
                    + labelSelector(sel)
                    + " matches no pod: label the engine pods or fix the selector (likely a selector mismatch)");
          }
        }
        final OffsetDateTime first = st == null ? null : st.firstKVEventObservedAt;
        final OffsetDateTime last =
            st == null || st.indexParticipation == null ? null : st.indexParticipation.lastEventAt;
        if (first == null && last == null) {
          report.add(
              Code.CB003,
              check,
              res,
              "no KV event observed yet: check the engines' KV-event publisher and the kvevent-subscriber sidecar");
        } else if (last != null && last.toInstant().isBefore(clock.instant().minus(STALE_EVENTS))) {
          report.add(
              Code.CB004,
              check,
              res,
              "last KV event at "
                  + last
                  + ", more than 2m ago: the engines may have stopped reporting");
        }
        final V1Condition probe = condition(st, "FunctionalProbeOK");
        if (probe != null && !"True".equals(probe.getStatus())) {
          report.add(
              Code.CB007,
              check,
              res,
              "functional probe is "
                  + probe.getStatus()
                  + " ("
                  + probe.getReason()
                  + "): "
                  + probe.getMessage());
        }
      }
      if (remote != null) {
        final String endpoint =
            st == null || st.remoteStorage == null || st.remoteStorage.endpoint == null
                ? ""
                : st.remoteStorage.endpoint.trim();
        if (endpoint.isEmpty()) {
          report.add(
              Code.CB005,
              check,
              res,
              "status.remoteStorage.endpoint is empty: the remote store is not published");
        } else if (!configOnly) {
          final String problem = dial(endpoint);
          if (problem != null) {
            report.add(
                Code.CB005, check, res, "remote store " + endpoint + " is unreachable: " + problem);
          }
        }
      }
      if (report.findings().size() == before) {
        report.add(Code.CB006, check, res, "healthy");
      }
    }
  }

  /** A TCP connection to {@code endpoint} (scheme stripped), or what went wrong. */
  private String dial(final String endpoint) {
    String hostPort = endpoint;
    final int scheme = hostPort.indexOf("://");
    if (scheme >= 0) {
      hostPort = hostPort.substring(scheme + 3);
    }
    final int slash = hostPort.indexOf('/');
    if (slash >= 0) {
      hostPort = hostPort.substring(0, slash);
    }
    final int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      return "no port in " + hostPort;
    }
    final int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      return "bad port in " + hostPort;
    }
    try (Socket s = new Socket()) {
      s.connect(
          new InetSocketAddress(hostPort.substring(0, colon), port), (int) timeout.toMillis());
      return null;
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** Check 6: whether each pod some backend selects was injected by it. */
  void enginePodInjectionAudit(final List<CacheBackend> backends, final Report report) {
    final String check = "EnginePodInjectionAudit";
    final Map<String, List<CacheBackend>> byNamespace = new TreeMap<>();
    for (final CacheBackend b : backends) {
      if (!selector(b).isEmpty()) {
        byNamespace.computeIfAbsent(b.getMetadata().getNamespace(), k -> new ArrayList<>()).add(b);
      }
    }
    for (final Map.Entry<String, List<CacheBackend>> ns : byNamespace.entrySet()) {
      ns.getValue().sort(Comparator.comparing(b -> b.getMetadata().getName()));
      final List<V1Pod> pods;
      final TreeSet<String> injectedUids = new TreeSet<>();
      try {
        pods = core.listNamespacedPod(ns.getKey()).execute().getItems();
        for (final CoreV1Event e : core.listNamespacedEvent(ns.getKey()).execute().getItems()) {
          if (INJECTED_REASON.equals(e.getReason()) && e.getInvolvedObject().getUid() != null) {
            injectedUids.add(e.getInvolvedObject().getUid());
          }
        }
        for (final EventsV1Event e : events.listNamespacedEvent(ns.getKey()).execute().getItems()) {
          if (INJECTED_REASON.equals(e.getReason())
              && e.getRegarding() != null
              && e.getRegarding().getUid() != null) {
            injectedUids.add(e.getRegarding().getUid());
          }
        }
      } catch (ApiException e) {
        report.add(
            Code.API001,
            check,
            "pods",
            "list pods or events failed: HTTP " + e.getCode() + " " + e.getMessage());
        continue;
      }
      pods.sort(Comparator.comparing(p -> p.getMetadata().getName()));
      for (final V1Pod pod : pods) {
        final Map<String, String> labels =
            pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        final List<CacheBackend> owners = new ArrayList<>();
        for (final CacheBackend b : ns.getValue()) {
          if (labels.entrySet().containsAll(selector(b).entrySet())) {
            owners.add(b);
          }
        }
        if (owners.isEmpty()) {
          continue;
        }
        final String res = "pod/" + ns.getKey() + "/" + pod.getMetadata().getName();
        if (owners.size() > 1) {
          final List<String> names = new ArrayList<>();
          owners.forEach(b -> names.add(b.getMetadata().getName()));
          report.add(
              Code.EP003,
              check,
              res,
              "matched by several CacheBackends ("
                  + String.join(", ", names)
                  + "): injection needs exactly one owner");
          continue;
        }
        final CacheBackend owner = owners.get(0);
        final Map<String, String> ann =
            pod.getMetadata().getAnnotations() == null
                ? Map.of()
                : pod.getMetadata().getAnnotations();
        final boolean stamped =
            (ns.getKey() + "/" + owner.getMetadata().getName()).equals(ann.get(INJECTED_BY))
                && Objects.equals(owner.getMetadata().getUid(), ann.get(INJECTED_BY_UID));
        if (stamped || injectedUids.contains(pod.getMetadata().getUid())) {
          report.add(
              Code.EP002, check, res, "injected by CacheBackend " + owner.getMetadata().getName());
        } else {
          report.add(
              Code.EP001,
              check,
              res,
              "selected by CacheBackend "
                  + owner.getMetadata().getName()
                  + " but not injected: the pod webhook did not run or skipped it (recreate the pod)");
        }
      }
    }
  }

  /** Check 7: pods reported as matching no backend in the last 24 hours. */
  void orphanPodCheck(final Report report) {
    final String check = "OrphanPodCheck";
    final OffsetDateTime since = OffsetDateTime.now(clock).minus(ORPHAN_WINDOW);
    try {
      final List<CoreV1Event> list =
          namespace.isEmpty()
              ? core.listEventForAllNamespaces().execute().getItems()
              : core.listNamespacedEvent(namespace).execute().getItems();
      final TreeSet<String> pods = new TreeSet<>();
      for (final CoreV1Event e : list) {
        final OffsetDateTime at =
            e.getLastTimestamp() != null ? e.getLastTimestamp() : e.getEventTime();
        if (ORPHAN_REASON.equals(e.getReason())
            && "Pod".equals(e.getInvolvedObject().getKind())
            && (at == null || at.isAfter(since))) {
          pods.add(
              "pod/"
                  + e.getInvolvedObject().getNamespace()
                  + "/"
                  + e.getInvolvedObject().getName());
        }
      }
      for (final String p : pods) {
        report.add(Code.OP001, check, p, "reported in the last 24h as matching no CacheBackend");
      }
    } catch (ApiException e) {
      report.add(
          Code.API001,
          check,
          "events",
          "list events failed: HTTP " + e.getCode() + " " + e.getMessage());
    }
  }

  /** Check 8. */
  void cacheTenantHealth(final Report report) {
    final String check = "CacheTenantHealth";
    final List<CacheTenant> tenants = list(CacheTenant.CRD, check, report);
    if (tenants == null) {
      return;
    }
    for (final CacheTenant t : tenants) {
      final V1Condition over = condition(t.getStatus(), "QuotaExceeded");
      if (over != null && "True".equals(over.getStatus())) {
        report.add(
            Code.CT001, check, ref("cachetenant", t), "over its quota: " + over.getMessage());
      } else {
        report.add(Code.CT002, check, ref("cachetenant", t), "within its quota");
      }
    }
  }

  /** Check 9: one CachePolicy per namespace that has backends. */
  void cachePolicyCoverage(final List<CacheBackend> backends, final Report report) {
    final String check = "CachePolicyCoverage";
    final TreeSet<String> namespaces = new TreeSet<>();
    backends.forEach(b -> namespaces.add(b.getMetadata().getNamespace()));
    if (namespaces.isEmpty()) {
      return;
    }
    final List<CachePolicy> policies = list(CachePolicy.CRD, check, report);
    if (policies == null) {
      return;
    }
    for (final String ns : namespaces) {
      final List<String> names = new ArrayList<>();
      for (final CachePolicy p : policies) {
        if (ns.equals(p.getMetadata().getNamespace())) {
          names.add(p.getMetadata().getName());
        }
      }
      final String res = "namespace/" + ns;
      if (names.isEmpty()) {
        report.add(Code.CP001, check, res, "no CachePolicy: the server's defaults apply");
      } else if (names.size() == 1) {
        report.add(Code.CP002, check, res, "CachePolicy " + names.get(0));
      } else {
        report.add(
            Code.CP003,
            check,
            res,
            names.size()
                + " CachePolicies ("
                + String.join(", ", names)
                + "): only one per namespace takes effect");
      }
    }
  }
}
