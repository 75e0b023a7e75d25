package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shape of the shipped alert rules, their runbooks and the dashboard: what an operator relies
 * on when paged or looking at a panel. Their behaviour against real series is {@link
 * ObservabilityIT}'s.
 */
class ObservabilityFilesTest {
  private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");

  @Test
  void everyAlertHasASeverityTheComponentASummaryAndItsOwnRunbookSection() throws Exception {
    final String runbooks = Files.readString(ObservabilityFiles.RUNBOOKS, StandardCharsets.UTF_8);
    final Set<String> names = new HashSet<>();
    for (final ObservabilityFiles.Alert a : ObservabilityFiles.alerts()) {
      assertThat(names.add(a.name())).as("alert names are unique: " + a.name()).isTrue();
      assertThat(a.labels().path("severity").asText()).as(a.name()).isIn(SEVERITIES);
      assertThat(a.labels().path("component").asText()).as(a.name()).isEqualTo("inference-cache");
      assertThat(a.annotations().path("summary").asText()).as(a.name()).isNotBlank();
      assertThat(a.annotations().path("runbook_url").asText())
          .as(a.name())
          .isEqualTo("docs/observability/alerts.md#" + a.name().toLowerCase(java.util.Locale.ROOT));
      assertThat(runbooks).as("runbook section of " + a.name()).contains("\n## " + a.name() + "\n");
    }
    final Matcher table = Pattern.compile("(?m)^\\| \\[(\\w+)\\]\\(#(\\w+)\\)").matcher(runbooks);
    final Set<String> listed = new HashSet<>();
    while (table.find()) {
      assertThat(table.group(2)).isEqualTo(table.group(1).toLowerCase(java.util.Locale.ROOT));
      listed.add(table.group(1));
    }
    assertThat(listed).as("the runbook page's table lists exactly the alerts").isEqualTo(names);
  }

  @Test
  void thePrometheusRuleOfTheBundleHoldsExactlyTheRulesFile() throws Exception {
    final JsonNode rule =
        RenderedBundle.YAML.readTree(
            ObservabilityFiles.ROOT
                .resolve("ops/config/observability/prometheus-rule.yaml")
                .toFile());
    assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");
    assertThat(rule.at("/metadata/name").asText()).isEqualTo("inference-cache-alerts");
    assertThat(rule.at("/metadata/labels/role").asText()).isEqualTo("alert-rules");
    assertThat(rule.at("/metadata/labels/prometheus").asText()).isEqualTo("k8s");
    assertThat(rule.at("/spec/groups"))
        .as("run ops/config/observability/generate-prometheus-rule.sh after changing the rules")
        .isEqualTo(ObservabilityFiles.rules().path("groups"));
  }

  @Test
  void theUpstreamAlertsKeepTheirGroupDurationAndSeverity() {
    final Map<String, List<String>> upstream =
        Map.of(
            "IndexEmpty", List.of("inferencecache-health", "2m", "critical"),
            "LMCacheT2NoHits", List.of("inferencecache-health", "5m", "warning"),
            "LookupRouteDegenerate", List.of("inferencecache-routing", "5m", "warning"),
            "LookupRouteHighTimeout", List.of("inferencecache-routing", "5m", "warning"),
            "IndexEvictionsSpike", List.of("inferencecache-capacity", "10m", "info"),
            "ServerProbeFail", List.of("inferencecache-cachebackend", "5m", "critical"));
    final JsonNode groups = ObservabilityFiles.rules().path("groups");
    int found = 0;
    for (final JsonNode g : groups) {
      assertThat(g.path("interval").asText()).as(g.path("name").asText()).isEqualTo("30s");
      for (final JsonNode r : g.path("rules")) {
        final List<String> want = upstream.get(r.path("alert").asText());
        if (want != null) {
          found++;
          assertThat(
                  List.of(
                      g.path("name").asText(),
                      r.path("for").asText(),
                      r.path("labels").path("severity").asText()))
              .as(r.path("alert").asText())
              .isEqualTo(want);
        }
      }
    }
    assertThat(found).isEqualTo(upstream.size());
  }

  @Test
  void everyDashboardQueryIsScopedByTheNamespaceVariableOnTheChosenDataSource() {
    final JsonNode d = ObservabilityFiles.dashboard();
    final Set<Integer> ids = new HashSet<>();
    for (final JsonNode p : d.path("panels")) {
      assertThat(ids.add(p.path("id").asInt())).as("panel ids are unique").isTrue();
      for (final JsonNode t : p.path("targets")) {
        final String where = p.path("title").asText() + ": " + t.path("expr").asText();
        assertThat(t.path("datasource").path("uid").asText()).as(where).isEqualTo("${datasource}");
        assertThat(t.path("expr").asText()).as(where).contains("namespace=~\"$namespace\"");
      }
    }
    final Set<String> variables = new HashSet<>();
    d.at("/templating/list").forEach(v -> variables.add(v.path("name").asText()));
    assertThat(variables).containsExactlyInAnyOrder("datasource", "namespace", "model");
  }

  @Test
  void theDashboardAnswersTheOperatorsQuestions() {
    final String all = String.join("\n", ObservabilityFiles.dashboardQueries().values());
    assertThat(all)
        .as("lookups by reason code and hint use")
        .contains("sum by (reason_code) (rate(inferencecache_lookup_route_calls_total")
        .contains("hint_used=\"true\"")
        .as("latency percentiles")
        .contains(
            "histogram_quantile(0.99, sum by (le) (rate(inferencecache_lookup_route_latency_seconds_bucket")
        .as("index entries per model")
        .contains("sum by (model) (inferencecache_index_entries")
        .as("evictions by reason")
        .contains("sum by (algorithm, reason) (rate(inferencecache_index_evictions_total")
        .as("shed calls")
        .contains("inferencecache_grpc_calls_shed_total")
        .as("ingest rate and drops")
        .contains("inferencecache_ingest_entries_total")
        .contains("inferencecache_ingest_entries_dropped_total")
        .as("auth failures")
        .contains("inferencecache_snapshot_auth_total")
        .as("JVM memory")
        .contains("jvm_memory_bytes_used")
        .as("replication: broker connection and lag per replica")
        .contains("max by (namespace, pod, instance) (inferencecache_replication_connected")
        .contains("max by (namespace, pod, instance) (inferencecache_replication_lag_milliseconds")
        .as("replication: applied, unreadable, forwarded and applied-locally rates")
        .contains("rate(inferencecache_replication_messages_applied_total")
        .contains("rate(inferencecache_replication_messages_unreadable_total")
        .contains("rate(inferencecache_replication_forwarded_total")
        .contains("rate(inferencecache_replication_applied_locally_total")
        .as("replication: applied sequence spread across the replicas of a job")
        .contains(
            "max by (namespace, job) (inferencecache_replication_applied_sequence{namespace=~\"$namespace\"})"
                + " - min by (namespace, job) (inferencecache_replication_applied_sequence");
  }

  @Test
  void dashboardPanelsDoNotOverlapAndEachRowStartsBelowThePanelsAboveIt() {
    final List<int[]> boxes = new java.util.ArrayList<>();
    final List<String> titles = new java.util.ArrayList<>();
    for (final JsonNode p : ObservabilityFiles.dashboard().path("panels")) {
      final JsonNode g = p.path("gridPos");
      final int[] box = {
        g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(), g.path("h").asInt()
      };
      assertThat(box[0] + box[2])
          .as(p.path("title").asText() + " fits 24 columns")
          .isLessThanOrEqualTo(24);
      for (int i = 0; i < boxes.size(); i++) {
        final int[] o = boxes.get(i);
        final boolean apart =
            box[0] >= o[0] + o[2]
                || o[0] >= box[0] + box[2]
                || box[1] >= o[1] + o[3]
                || o[1] >= box[1] + box[3];
        assertThat(apart).as(p.path("title").asText() + " overlaps " + titles.get(i)).isTrue();
      }
      boxes.add(box);
      titles.add(p.path("title").asText());
    }
  }

  @Test
  void theReplicationAlertsAreOneGroupAndReadOnlyReplicationSeries() {
    final List<ObservabilityFiles.Alert> replication =
        ObservabilityFiles.alerts().stream()
            .filter(a -> ObservabilityFiles.readsReplication(a.expr()))
            .toList();
    assertThat(replication)
        .extracting(ObservabilityFiles.Alert::name)
        .containsExactly(
            "ReplicationBrokerDown",
            "ReplicationReplicaDisconnected",
            "ReplicationLagHigh",
            "ReplicationStalled",
            "ReplicationMessagesUnreadable",
            "ReplicationAppliedLocally");
    for (final ObservabilityFiles.Alert a : replication) {
      assertThat(a.group()).as(a.name()).isEqualTo("inferencecache-replication");
      // Only replication series: absent with replication off, so the rule cannot fire there.
      assertThat(a.serverSeries()).as(a.name()).isEmpty();
      assertThat(a.expr()).as(a.name()).doesNotContain("absent(");
      assertThat(a.annotations().path("description").asText()).as(a.name()).isNotBlank();
    }
  }

  @Test
  void theSubscriberAlertIsItsOwnGroupAndReadsOnlySubscriberSeries() {
    final List<ObservabilityFiles.Alert> subscriber =
        ObservabilityFiles.alerts().stream()
            .filter(a -> ObservabilityFiles.readsSubscriber(a.expr()))
            .toList();
    assertThat(subscriber)
        .extracting(ObservabilityFiles.Alert::name)
        .containsExactly("SubscriberDeliveryFailing");
    for (final ObservabilityFiles.Alert a : subscriber) {
      assertThat(a.group()).as(a.name()).isEqualTo("inferencecache-subscriber");
      // A server exports none of them: the live-server check must not look for them.
      assertThat(a.serverSeries()).as(a.name()).isEmpty();
      assertThat(a.expr()).as(a.name()).contains("by (namespace, pod)");
      assertThat(a.annotations().path("description").asText()).as(a.name()).isNotBlank();
    }
  }
}
