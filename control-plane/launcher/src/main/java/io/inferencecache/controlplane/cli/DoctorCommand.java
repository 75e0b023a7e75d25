package io.inferencecache.controlplane.cli;

import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.doctor.Doctor;
import io.inferencecache.controlplane.doctor.OutputFormat;
import io.inferencecache.controlplane.doctor.Report;
import io.inferencecache.controlplane.server.core.LogConfigurer;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code doctor}: read-only checks of a running installation. Exit 0 when the worst finding is OK
 * or INFO, 1 for WARN, 2 for FAIL; a usage or kubeconfig error prints {@code error: ...} and exits
 * 1. Standard output holds the report only; logs go to standard error, at warn unless {@code
 * --log-level} or {@code -v} asks for more.
 */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    description =
        "Check an installation: the server, the bridge endpoints and the custom resources.",
    sortOptions = false)
public final class DoctorCommand implements Callable<Integer>, OwnsUsageErrors {
  static final String DEFAULT_TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token";

  @Spec private CommandSpec spec;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else in-cluster).")
  String kubeconfig = "";

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "Kubeconfig context (default: current).")
  String context = "";

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "Namespace every list is scoped to (default: all namespaces).")
  String namespace = "";

  @Option(
      names = "--server-endpoint",
      paramLabel = "HOST[:PORT]",
      description =
          "Server gRPC address (default port 9090); default: discover Service inference-cache-server.")
  String serverEndpoint = "";

  @Option(
      names = "--snapshot-port",
      paramLabel = "PORT",
      description = "Port of /snapshot, /policy and /probe on the server's host (default 8081).")
  int snapshotPort = 8081;

  @Option(
      names = "--snapshot-token-file",
      paramLabel = "FILE",
      description =
          "Bearer token for /snapshot only (default " + DEFAULT_TOKEN_FILE + "; missing: none).")
  String snapshotTokenFile = DEFAULT_TOKEN_FILE;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "human, json or table (default human).")
  String output = "human";

  @Option(
      names = "--no-color",
      description = "No colour in human output (only used on a terminal).")
  boolean noColor;

  @Option(
      names = "--config-only",
      description = "Skip gRPC health, /snapshot, /policy, /probe and the remote-store dial.")
  boolean configOnly;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = "Bound of each network call (default 30s).")
  String timeout = "30s";

  @Option(
      names = "--log-level",
      paramLabel = "LEVEL",
      description =
          "Log level on standard error: debug, info, warn (warning) or error (default warn).")
  String logLevel;

  @Option(
      names = {"-v", "--verbose"},
      description = "Log at debug level on standard error (--log-level=debug).")
  boolean verbose;

  @Override
  public Integer call() {
    final PrintWriter out = spec.commandLine().getOut();
    final PrintWriter err = spec.commandLine().getErr();
    final OutputFormat format;
    final Duration limit;
    final ApiClient client;
    try {
      LogConfigurer.level(logLevel != null ? logLevel : verbose ? "debug" : "warn");
      format = OutputFormat.parse(output);
      limit = GoDuration.parse(timeout);
      client = client(limit);
    } catch (IllegalArgumentException | IOException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 1;
    }
    final Report report =
        Doctor.run(
            client,
            new Doctor.Options(
                namespace, serverEndpoint, snapshotPort, token(err), configOnly, limit),
            Clock.systemUTC(),
            err);
    out.print(
        format.render(
            report, format == OutputFormat.HUMAN && !noColor && System.console() != null));
    out.flush();
    return report.exitCode();
  }

  @Override
  public int usageError(final String message, final PrintWriter err) {
    err.println("error: " + message);
    err.flush();
    return 1;
  }

  /** The token, or null when the file is missing (silently) or unreadable (with a warning). */
  private String token(final PrintWriter err) {
    final Path p = Path.of(snapshotTokenFile);
    if (snapshotTokenFile.isEmpty() || !Files.exists(p)) {
      return null;
    }
    try {
      final String t = Files.readString(p, StandardCharsets.UTF_8).trim();
      return t.isEmpty() ? null : t;
    } catch (IOException e) {
      err.println(
          "warning: cannot read --snapshot-token-file "
              + snapshotTokenFile
              + ": "
              + e.getMessage());
      err.flush();
      return null;
    }
  }

  private ApiClient client(final Duration limit) throws IOException {
    final ApiClient c =
        KubeAccess.client(kubeconfig, KubeAccess.Order.HOME_THEN_CLUSTER, context, limit);
    c.setConnectTimeout((int) limit.toMillis());
    c.setReadTimeout((int) limit.toMillis());
    return c;
  }
}
