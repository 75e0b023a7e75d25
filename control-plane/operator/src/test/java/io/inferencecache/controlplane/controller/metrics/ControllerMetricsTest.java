package io.inferencecache.controlplane.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import java.io.IOException;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {
  private final MetricRegistry registry = new MetricRegistry();
  private final ControllerMetrics metrics = new ControllerMetrics(registry);

  private String scrape() throws IOException {
    final StringWriter out = new StringWriter();
    new PrometheusExposition(registry).write(out);
    return out.toString();
  }

  @Test
  void aRegisteredControllersCountersExistAtZeroForEveryResult() throws IOException {
    metrics.controller("cachepolicies-policy-push");
    final String text = scrape();
    for (final String result : new String[] {"success", "error", "requeue", "requeue_after"}) {
      assertThat(text)
          .contains(
              "controller_runtime_reconcile_total{controller=\"cachepolicies-policy-push\",result=\""
                  + result
                  + "\",} 0.0");
    }
    assertThat(text)
        .contains(
            "controller_runtime_reconcile_errors_total{controller=\"cachepolicies-policy-push\",}"
                + " 0.0")
        .contains("workqueue_adds_total{name=\"cachepolicies-policy-push\",} 0.0")
        .contains("workqueue_retries_total{name=\"cachepolicies-policy-push\",} 0.0")
        .contains("workqueue_depth{name=\"cachepolicies-policy-push\",} 0.0")
        .contains(
            "leader_election_master_status{name=\"inference-cache-controller-leader-lock\",} 0.0")
        .contains("# TYPE controller_runtime_reconcile_total counter");
  }

  @Test
  void anErrorCountsInTheResultAndTheErrorsTotal() throws IOException {
    final ControllerMetrics.Reconciles r = metrics.controller("c");
    r.reconciled(ControllerMetrics.Outcome.ERROR);
    r.reconciled(ControllerMetrics.Outcome.SUCCESS);
    r.depth(() -> 3);
    metrics.leading(true);
    assertThat(scrape())
        .contains("controller_runtime_reconcile_total{controller=\"c\",result=\"error\",} 1.0")
        .contains("controller_runtime_reconcile_total{controller=\"c\",result=\"success\",} 1.0")
        .contains("controller_runtime_reconcile_errors_total{controller=\"c\",} 1.0")
        .contains("workqueue_depth{name=\"c\",} 3.0")
        .contains(
            "leader_election_master_status{name=\"inference-cache-controller-leader-lock\",} 1.0");
  }

  @Test
  void theFirstT2ObservationIsABaselineAndDropsAddNothing() throws IOException {
    metrics.t2QueryTokens("ns/b", 500);
    assertThat(scrape())
        .contains("inferencecache_backend_t2_query_tokens_total{backend=\"ns/b\",} 0.0");
    metrics.t2QueryTokens("ns/b", 800);
    metrics.t2QueryTokens("ns/b", 100); // an engine restart: counts from 100 again
    metrics.t2QueryTokens("ns/b", 150);
    assertThat(scrape())
        .contains("inferencecache_backend_t2_query_tokens_total{backend=\"ns/b\",} 350.0");
    metrics.pruneBackend("ns/b");
    assertThat(scrape()).doesNotContain("ns/b");
    metrics.t2QueryTokens("ns/b", 900);
    assertThat(scrape())
        .as("after a prune the next observation is a baseline again")
        .contains("inferencecache_backend_t2_query_tokens_total{backend=\"ns/b\",} 0.0");
  }

  @Test
  void theT2GaugeAndProbeCounterHaveTheSpecifiedNamesAndLabels() throws IOException {
    metrics.t2HitRate("ns/b", 0.25);
    metrics.t2HitRate("ns/b", 0.5);
    metrics.probeResult("ns/b", "routing", "ok");
    metrics.probeResult("ns/b", "routing", "ok");
    assertThat(scrape())
        .contains("inferencecache_backend_t2_hit_rate{backend=\"ns/b\",} 0.5")
        .contains(
            "inferencecache_backend_probe_result_total{backend=\"ns/b\",result=\"ok\",stage=\"routing\",}"
                + " 2.0")
        .contains("# TYPE inferencecache_backend_t2_hit_rate gauge");
  }
}
