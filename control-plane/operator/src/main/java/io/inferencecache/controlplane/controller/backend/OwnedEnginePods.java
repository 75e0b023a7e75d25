package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.webhook.RuntimeAdapter;
import io.inferencecache.controlplane.webhook.SubscriberSidecar;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The engine pods the pod webhook injected for one CacheBackend: same namespace, annotation {@code
 * injected-by} = {@code ns/name} and {@code injected-by-uid} = the CR's UID (a pod stamped for an
 * earlier CR of the same name is not this one's). Listed live, once per reconcile, for the kernel
 * check and engine compatibility verdicts.
 */
final class OwnedEnginePods {
  private final CoreV1Api core;

  OwnedEnginePods(final ApiClient client) {
    this.core = new CoreV1Api(client);
  }

  /** The owned pods; an API error is thrown so the verdicts can leave their conditions alone. */
  List<V1Pod> list(final CacheBackend cr) throws ApiException {
    return owned(cr, core.listNamespacedPod(cr.getMetadata().getNamespace()).execute().getItems());
  }

  /** The pods of {@code pods} stamped by {@code cr} (name and UID). */
  static List<V1Pod> owned(final CacheBackend cr, final List<V1Pod> pods) {
    final String key = cr.key();
    final String uid = cr.getMetadata().getUid();
    final List<V1Pod> out = new ArrayList<>();
    if (uid == null || uid.isEmpty()) {
      return out;
    }
    for (final V1Pod p : pods) {
      final Map<String, String> a =
          p.getMetadata() == null ? null : p.getMetadata().getAnnotations();
      if (a != null
          && key.equals(a.get(Backends.INJECTED_BY))
          && uid.equals(a.get(Backends.INJECTED_BY_UID))
          && cr.getMetadata().getNamespace().equals(p.getMetadata().getNamespace())) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * The engine container's name in {@code pod}: the adapter's engine container when the pod has
   * one, else the only container that is not {@code kvevent-subscriber}; null when neither.
   */
  static String engineContainer(final CacheBackend cr, final V1Pod pod) {
    final String adapterName =
        RuntimeAdapter.select(Backends.spec(cr)).map(RuntimeAdapter::engineContainer).orElse(null);
    final List<V1Container> containers =
        pod.getSpec() == null ? null : pod.getSpec().getContainers();
    if (containers == null) {
      return null;
    }
    String only = null;
    int others = 0;
    for (final V1Container c : containers) {
      if (c.getName().equals(adapterName)) {
        return adapterName;
      }
      if (!SubscriberSidecar.NAME.equals(c.getName())) {
        only = c.getName();
        others++;
      }
    }
    return others == 1 ? only : null;
  }

  /** {@code ns/name} of a pod, for messages. */
  static String name(final V1Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
