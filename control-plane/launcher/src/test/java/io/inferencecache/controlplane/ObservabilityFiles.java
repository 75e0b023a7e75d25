package io.inferencecache.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The shipped alert rules ({@code ops/alerts}) and dashboard ({@code ops/dashboards}), parsed. */
final class ObservabilityFiles {
  static final Path ROOT = Path.of("..", "..").toAbsolutePath().normalize();
  static final Path ALERTS = ROOT.resolve("ops/alerts");
  static final Path RULES = ALERTS.resolve("inference-cache.rules.yaml");
  static final Path RULE_TESTS = ALERTS.resolve("inference-cache.rules.test.yaml");
  static final Path DASHBOARD = ROOT.resolve("ops/dashboards/inference-cache.json");
  static final Path RUNBOOKS = ROOT.resolve("docs/observability/alerts.md");

  /**
   * Series the controller exports ({@code inferencecache_backend_*}); a server does not, so the
   * live-server check leaves them to {@code ControllerObservabilityIT}.
   */
  static final String CONTROLLER_SERIES_PREFIX = "inferencecache_backend_";

  /** Every series only a controller exports: its own families and the controller-runtime ones. */
  private static final Pattern CONTROLLER_SERIES =
      Pattern.compile(
          "\\b(inferencecache_backend_|inferencecache_controller_|controller_runtime_|workqueue_"
              + "|leader_election_)[a-z0-9_]*[a-z0-9]");

  /** Whether {@code expr} reads a series only a controller exports. */
  static boolean readsController(final String expr) {
    return CONTROLLER_SERIES.matcher(expr).find();
  }

  /** The controller-only series {@code expr} reads. */
  static Set<String> controllerSeries(final String expr) {
    final Set<String> names = new LinkedHashSet<>();
    final Matcher m = CONTROLLER_SERIES.matcher(expr);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /**
   * Series a server exports only with replication on ({@code replication.natsUrl} set); the
   * live-server check (replication off) leaves them to {@code ReplicationObservabilityIT}.
   */
  static final String REPLICATION_SERIES_PREFIX = "inferencecache_replication_";

  /** Whether {@code expr} reads a series only a server with replication on exports. */
  static boolean readsReplication(final String expr) {
    return expr.contains(REPLICATION_SERIES_PREFIX);
  }

  /**
   * Series the subscriber sidecar exports ({@code inferencecache_subscriber_*}), not a server; the
   * live-server check leaves them to {@code SubscriberObservabilityIT}.
   */
  static final String SUBSCRIBER_SERIES_PREFIX = "inferencecache_subscriber_";

  /** Whether {@code expr} reads a series only a subscriber exports. */
  static boolean readsSubscriber(final String expr) {
    return expr.contains(SUBSCRIBER_SERIES_PREFIX);
  }

  private static final Pattern SERIES = Pattern.compile("\\binferencecache_[a-z0-9_]*[a-z0-9]");

  private ObservabilityFiles() {}

  /** One alerting rule. */
  record Alert(String group, String name, String expr, JsonNode labels, JsonNode annotations) {
    /**
     * The {@code inferencecache_*} series the expression reads that a server exports whatever its
     * configuration (neither the controller's, the replication ones nor the subscriber's).
     */
    Set<String> serverSeries() {
      final Set<String> names = new LinkedHashSet<>();
      for (final String name : series()) {
        if (!name.startsWith(CONTROLLER_SERIES_PREFIX)
            && !name.startsWith(REPLICATION_SERIES_PREFIX)
            && !name.startsWith(SUBSCRIBER_SERIES_PREFIX)) {
          names.add(name);
        }
      }
      return names;
    }

    /** The {@code inferencecache_replication_*} series the expression reads. */
    Set<String> replicationSeries() {
      final Set<String> names = new LinkedHashSet<>();
      for (final String name : series()) {
        if (name.startsWith(REPLICATION_SERIES_PREFIX)) {
          names.add(name);
        }
      }
      return names;
    }

    private Set<String> series() {
      final Set<String> names = new LinkedHashSet<>();
      final Matcher m = SERIES.matcher(expr);
      while (m.find()) {
        names.add(m.group());
      }
      return names;
    }
  }

  private static JsonNode read(final ObjectMapper mapper, final Path p) {
    try {
      return mapper.readTree(p.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode rules() {
    return read(new ObjectMapper(new YAMLFactory()), RULES);
  }

  static int groupCount() {
    return rules().path("groups").size();
  }

  static List<Alert> alerts() {
    final List<Alert> out = new ArrayList<>();
    for (final JsonNode g : rules().path("groups")) {
      for (final JsonNode r : g.path("rules")) {
        out.add(
            new Alert(
                g.path("name").asText(),
                r.path("alert").asText(),
                r.path("expr").asText(),
                r.path("labels"),
                r.path("annotations")));
      }
    }
    return out;
  }

  static JsonNode dashboard() {
    return read(new ObjectMapper(), DASHBOARD);
  }

  /** Every query of the dashboard, keyed {@code <panel title> [<refId>]}. */
  static Map<String, String> dashboardQueries() {
    final Map<String, String> out = new LinkedHashMap<>();
    for (final JsonNode p : dashboard().path("panels")) {
      for (final JsonNode t : p.path("targets")) {
        out.put(
            p.path("title").asText() + " [" + t.path("refId").asText() + "]",
            t.path("expr").asText());
      }
    }
    return out;
  }

  /** {@code expr} with the dashboard's variables set as Grafana would. */
  static String substitute(final String expr, final String namespace, final String rateInterval) {
    return expr.replace("$namespace", namespace)
        .replace("$model", ".*")
        .replace("$__rate_interval", rateInterval);
  }
}
