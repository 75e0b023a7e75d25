package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * The pod events the admission webhook cannot write (a pod has no UID at admission): {@code
 * InjectedByCacheBackend} on a pod whose {@code injected-by} names a live CacheBackend with the
 * stamped UID (the backend as related object), {@code SkippedByOperator} on a pod that opted out.
 * Fed by pod creations only; the informer's first list counts as creations, so each controller
 * start (and each new leader) re-emits them for every existing candidate pod.
 */
final class EnginePodEventsReconciler implements Reconciler {
  static final String REPORTER = "engine-pod-events";
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final Lister<V1Pod> pods;
  private final GenericKubernetesApi<CacheBackend, ?> backends;
  private final EventRecorder events;
  private final BooleanSupplier leader;

  EnginePodEventsReconciler(
      final Lister<V1Pod> pods,
      final ApiClient client,
      final EventRecorder events,
      final BooleanSupplier leader) {
    this.pods = pods;
    this.backends = CacheBackend.CRD.api(client);
    this.events = events;
    this.leader = leader;
  }

  static boolean skipped(final Map<String, String> a) {
    return a != null
        && PodStamps.optsOut(a.get(Backends.SKIP_INJECT))
        && Backends.SKIPPED_BY_ANNOTATION.equals(a.get(Backends.INJECT_SKIPPED));
  }

  /** The creations worth a look: an {@code injected-by} stamp, or an operator opt-out. */
  static boolean candidate(final V1Pod pod) {
    final Map<String, String> a = pod.getMetadata().getAnnotations();
    return a != null && (a.containsKey(Backends.INJECTED_BY) || skipped(a));
  }

  /** {@code [ns, name]} of a valid {@code ns/name} stamp, else {@code null}. */
  static String[] injectedBy(final String value) {
    if (value == null) {
      return null;
    }
    final int slash = value.indexOf('/');
    if (slash <= 0 || slash != value.lastIndexOf('/')) {
      return null;
    }
    final String ns = value.substring(0, slash);
    final String name = value.substring(slash + 1);
    if (!DNS_LABEL.matcher(ns).matches()
        || name.length() > 253
        || !DNS_SUBDOMAIN.matcher(name).matches()) {
      return null;
    }
    return new String[] {ns, name};
  }

  @Override
  public Result reconcile(final Request request) {
    if (!leader.getAsBoolean()) {
      return new Result(false);
    }
    final V1Pod pod = pods.namespace(request.getNamespace()).get(request.getName());
    if (pod == null) {
      return new Result(false);
    }
    final Map<String, String> a = pod.getMetadata().getAnnotations();
    final V1ObjectReference regarding =
        new V1ObjectReference()
            .apiVersion("v1")
            .kind("Pod")
            .namespace(pod.getMetadata().getNamespace())
            .name(pod.getMetadata().getName())
            .uid(pod.getMetadata().getUid());
    if (a != null && !a.containsKey(Backends.INJECTED_BY) && skipped(a)) {
      events.normal(
          regarding,
          "SkippedByOperator",
          "Skipped cache injection: " + Backends.SKIPPED_BY_ANNOTATION);
      return new Result(false);
    }
    final String[] owner = injectedBy(a == null ? null : a.get(Backends.INJECTED_BY));
    final String uid = a == null ? null : a.get(Backends.INJECTED_BY_UID);
    if (owner == null || uid == null || uid.isEmpty()) {
      return new Result(false);
    }
    final KubernetesApiResponse<CacheBackend> got = backends.get(owner[0], owner[1]);
    if (got.getHttpStatusCode() == 404) {
      return new Result(false);
    }
    if (!got.isSuccess()) {
      return new Result(true);
    }
    final CacheBackend cr = got.getObject();
    if (!uid.equals(cr.getMetadata().getUid())) {
      return new Result(false);
    }
    events.normal(
        regarding,
        cr.reference(),
        "InjectedByCacheBackend",
        "Injected engine config from CacheBackend \"" + owner[0] + "/" + owner[1] + "\"");
    return new Result(false);
  }
}
