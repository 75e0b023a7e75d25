package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code status.matchedEnginePods} and {@code engineSelectorMessage} from live lists (pods matching
 * the selector, terminating ones included; Deployments whose pod template matches it, for the
 * expected count). Fail-soft: a failed list leaves what it would have set unchanged.
 */
final class MatchedPods {
  private static final Logger LOG = LoggerFactory.getLogger(MatchedPods.class);
  static final Duration STEADY = Duration.ofSeconds(30);
  static final Duration CHURN = Duration.ofSeconds(5);

  private final CoreV1Api core;
  private final AppsV1Api apps;

  MatchedPods(final ApiClient client) {
    this.core = new CoreV1Api(client);
    this.apps = new AppsV1Api(client);
  }

  /** {@code spec.engineSelector.matchLabels={k:v,...}; no Pods in namespace match}. */
  static String unmatchedMessage(final Map<String, String> selector) {
    final StringBuilder out = new StringBuilder("spec.engineSelector.matchLabels={");
    boolean first = true;
    for (final Map.Entry<String, String> e : selector.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(e.getKey()).append(':').append(e.getValue());
    }
    return out.append("}; no Pods in namespace match").toString();
  }

  /** The pods {@code cr}'s selector matches (live list; none without a selector). */
  List<V1Pod> selected(final CacheBackend cr) throws ApiException {
    final Map<String, String> selector = Backends.selector(cr);
    if (selector.isEmpty()) {
      return List.of();
    }
    return core.listNamespacedPod(cr.getMetadata().getNamespace())
        .labelSelector(Backends.labelSelector(selector))
        .execute()
        .getItems();
  }

  /** Refreshes the two fields of {@code st}; returns the requeue this asks for. */
  Duration refresh(final CacheBackend cr, final CacheBackend.Status st) {
    final Map<String, String> selector = Backends.selector(cr);
    if (selector.isEmpty()) {
      final boolean wasSet = st.matchedEnginePods != null;
      st.matchedEnginePods = null;
      st.engineSelectorMessage = null;
      return wasSet ? STEADY : null;
    }
    final String ns = cr.getMetadata().getNamespace();
    final List<V1Pod> pods;
    try {
      pods =
          core.listNamespacedPod(ns)
              .labelSelector(Backends.labelSelector(selector))
              .execute()
              .getItems();
    } catch (ApiException e) {
      LOG.warn("{}: engine pods not listed: {} {}", cr.key(), e.getCode(), e.getMessage());
      return STEADY;
    }
    st.matchedEnginePods = pods.size();
    int active = 0;
    for (final V1Pod p : pods) {
      final String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
        active++;
      }
    }
    Integer desired = null;
    try {
      for (final V1Deployment d : apps.listNamespacedDeployment(ns).execute().getItems()) {
        final Map<String, String> labels =
            d.getSpec() == null || d.getSpec().getTemplate().getMetadata() == null
                ? null
                : d.getSpec().getTemplate().getMetadata().getLabels();
        if (labels != null && labels.entrySet().containsAll(selector.entrySet())) {
          final Integer r = d.getSpec().getReplicas();
          desired = (desired == null ? 0 : desired) + (r == null ? 1 : r);
        }
      }
    } catch (ApiException e) {
      LOG.warn("{}: deployments not listed: {} {}", cr.key(), e.getCode(), e.getMessage());
      if (!pods.isEmpty()) {
        st.engineSelectorMessage = null;
      }
      return STEADY;
    }
    if (!pods.isEmpty() || (desired != null && desired == 0)) {
      st.engineSelectorMessage = null;
    } else {
      st.engineSelectorMessage = unmatchedMessage(selector);
    }
    return desired != null && desired != active ? CHURN : STEADY;
  }
}
