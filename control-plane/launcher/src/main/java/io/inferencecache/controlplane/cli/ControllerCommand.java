package io.inferencecache.controlplane.cli;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.controller.ControllerListeners;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.server.config.LogSettings;
import io.inferencecache.controlplane.server.core.LogConfigurer;
import io.inferencecache.controlplane.server.core.StartupException;
import io.inferencecache.controlplane.webhook.WebhookServer;
import io.inferencecache.controlplane.webhook.Webhooks;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code controller}: the control-plane controller. Upstream's flags ({@code cmd/controller}) with
 * their defaults, plus what running outside a cluster needs ({@code --kubeconfig}, the two token
 * files, the Lease namespace and timings). Any setup failure exits 1 with one line.
 */
@Command(
    name = "controller",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 200,
    description =
        "Run the controller: push CachePolicy/CacheTenant to the server's /policy and mirror its"
            + " /snapshot into CacheIndex and CacheTenant status.")
public final class ControllerCommand implements Callable<Integer> {
  @Option(
      names = "--metrics-bind-address",
      paramLabel = "ADDR",
      description = "Prometheus /metrics listen address; 0 disables it (default ${DEFAULT-VALUE}).")
  String metricsBindAddress = ":8080";

  @Option(
      names = "--metrics-secure",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description = "Serve metrics over HTTPS with the pair in --metrics-cert-dir (default false).")
  boolean metricsSecure;

  @Option(
      names = "--metrics-cert-dir",
      paramLabel = "DIR",
      description =
          "tls.crt (PEM chain) and tls.key (PEM PKCS#8) of the HTTPS metrics listener; required"
              + " with --metrics-secure.")
  Path metricsCertDir;

  @Option(
      names = "--enable-http2",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description = "HTTP/2 on the metrics listener (default false; it serves HTTP/1.1 only).")
  boolean enableHttp2;

  @Option(
      names = "--leader-elect",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description =
          "Leader election on the Lease inference-cache-controller-leader-lock (default false).")
  boolean leaderElect;

  @Option(
      names = "--health-probe-bind-address",
      paramLabel = "ADDR",
      description = "/healthz and /readyz listen address (default ${DEFAULT-VALUE}).")
  String healthProbeBindAddress = ":8081";

  @Option(
      names = "--server-snapshot-url",
      paramLabel = "URL",
      description = "GET target of the snapshot mirror (default ${DEFAULT-VALUE}).")
  String serverSnapshotUrl = "http://inference-cache-server:8081/snapshot";

  @Option(
      names = "--server-policy-url",
      paramLabel = "URL",
      description = "POST target of the policy push (default ${DEFAULT-VALUE}).")
  String serverPolicyUrl = "http://inference-cache-server:8081/policy";

  @Option(
      names = "--server-probe-url",
      paramLabel = "URL",
      description =
          "POST target of the Managed CacheBackend functional probe (controller token); empty"
              + " disables the probe gate (default ${DEFAULT-VALUE}).")
  String serverProbeUrl = "http://inference-cache-server:8081/probe";

  @Option(
      names = "--cacheindex-refresh-interval",
      paramLabel = "DURATION",
      description = "Snapshot poll cadence, Go duration; <= 0 means 30s (default 30s).")
  String cacheIndexRefreshInterval = "30s";

  @Option(
      names = "--cachepolicy-push-interval",
      paramLabel = "DURATION",
      description = "Periodic policy re-push cadence, Go duration; <= 0 means 30s (default 30s).")
  String cachePolicyPushInterval = "30s";

  @Option(
      names = "--kvevent-subscriber-image",
      paramLabel = "IMAGE",
      description =
          "Image of the kvevent-subscriber sidecar the pod webhook attaches; empty = none (default"
              + " empty).")
  String kveventSubscriberImage = "";

  @Option(
      names = "--policy-server-grpc-address",
      paramLabel = "HOST:PORT",
      description = "gRPC address the sidecar dials (default ${DEFAULT-VALUE}).")
  String policyServerGrpcAddress =
      "inference-cache-server.inference-cache-system.svc.cluster.local:9090";

  @Option(
      names = "--webhook-bind-address",
      paramLabel = "ADDR",
      description =
          "HTTPS listen address of the admission webhooks; 0 disables them (default"
              + " ${DEFAULT-VALUE}).")
  String webhookBindAddress = ":9443";

  @Option(
      names = "--webhook-cert-dir",
      paramLabel = "DIR",
      description =
          "Directory of the webhook serving certificate, tls.crt and tls.key (PEM),"
              + " reloaded when tls.crt changes (default ${DEFAULT-VALUE}).")
  Path webhookCertDir = Path.of(Webhooks.CERT_DIR_DEFAULT);

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "kubeconfig to use (default: $KUBECONFIG, else in-cluster, else ~/.kube/config;"
              + " none of them: exit 1).")
  Path kubeconfig;

  @Option(
      names = "--policy-token-file",
      paramLabel = "FILE",
      description =
          "Bearer token of the push, audience inferencecache.io/policy, re-read per push (default"
              + " ${DEFAULT-VALUE}).")
  Path policyTokenFile = Path.of(ControllerOptions.POLICY_TOKEN);

  @Option(
      names = "--controller-token-file",
      paramLabel = "FILE",
      description =
          "Bearer token of the snapshot poll, audience inferencecache.io/controller, re-read per"
              + " poll (default ${DEFAULT-VALUE}).")
  Path controllerTokenFile = Path.of(ControllerOptions.CONTROLLER_TOKEN);

  @Option(
      names = "--leader-election-namespace",
      paramLabel = "NS",
      description =
          "Namespace of the Lease (default: the pod's namespace in a cluster, else"
              + " inference-cache-system).")
  String leaderElectionNamespace;

  @Option(
      names = "--leader-elect-lease-duration",
      paramLabel = "DURATION",
      description = "How long a Lease holds without renewal (default 15s).")
  String leaseDuration = "15s";

  @Option(
      names = "--leader-elect-renew-deadline",
      paramLabel = "DURATION",
      description = "How long the leader retries renewing before it gives up (default 10s).")
  String renewDeadline = "10s";

  @Option(
      names = "--leader-elect-retry-period",
      paramLabel = "DURATION",
      description = "Wait between Lease acquire/renew attempts (default 2s).")
  String retryPeriod = "2s";

  @Option(
      names = {"--log-format", "--zap-encoder"},
      paramLabel = "FORMAT",
      description = "json or text (console) (default json).")
  String logFormat;

  @Option(
      names = {"--log-level", "--zap-log-level"},
      paramLabel = "LEVEL",
      description = "debug, info, warn (warning) or error (default info).")
  String logLevel;

  static final Path POD_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  @Override
  public Integer call() throws Exception {
    final ControllerOptions options = options();
    final MetricRegistry registry = new MetricRegistry();
    configureLogging(registry);
    final SSLContext metricsTls;
    try {
      metricsTls = metricsSecure ? ControllerListeners.tls(requiredCertDir()) : null;
    } catch (IOException e) {
      throw new StartupException(StartupException.FAILURE, "controller: " + e.getMessage(), e);
    }
    final ApiClient client;
    final ApiClient watchClient;
    try {
      client = kubeClient(options.kubeconfig(), Duration.ofSeconds(30));
      watchClient = kubeClient(options.kubeconfig(), Duration.ZERO);
    } catch (KubeAccess.Unavailable e) {
      throw new StartupException(StartupException.FAILURE, "controller: " + e.getMessage(), e);
    }
    final ControllerListeners listeners;
    try {
      listeners =
          new ControllerListeners(
              options.healthProbeBindAddress(), options.metricsBindAddress(), registry, metricsTls);
    } catch (IOException e) {
      throw new StartupException(StartupException.FAILURE, "controller: " + e.getMessage(), e);
    }
    final WebhookServer webhooks;
    try {
      webhooks =
          Webhooks.start(
              webhookBindAddress,
              webhookCertDir,
              client,
              kveventSubscriberImage,
              policyServerGrpcAddress);
    } catch (IOException e) {
      listeners.close();
      throw new StartupException(StartupException.FAILURE, "controller: " + e.getMessage(), e);
    }
    final ControllerRuntime runtime =
        new ControllerRuntime(
            options,
            client,
            watchClient,
            identity(),
            new ControllerMetrics(registry),
            serverProbeUrl);
    final Thread hook = new Thread(runtime::close, "controller-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runtime.run();
    } finally {
      if (webhooks != null) {
        webhooks.close();
      }
      listeners.close();
    }
  }

  private Path requiredCertDir() {
    if (metricsCertDir == null) {
      throw new StartupException(
          StartupException.FAILURE,
          "controller: --metrics-secure needs --metrics-cert-dir (a directory with tls.crt and"
              + " tls.key)");
    }
    return metricsCertDir;
  }

  ControllerOptions options() {
    for (final String url : new String[] {serverSnapshotUrl, serverPolicyUrl}) {
      try {
        final URI u = URI.create(url);
        if (u.getScheme() == null || u.getHost() == null) {
          throw new IllegalArgumentException("not an absolute http(s) URL");
        }
      } catch (IllegalArgumentException e) {
        throw new StartupException(
            StartupException.FAILURE, "controller: server URL " + url + ": " + e.getMessage(), e);
      }
    }
    return new ControllerOptions(
        metricsBindAddress,
        healthProbeBindAddress,
        leaderElect,
        serverSnapshotUrl,
        serverPolicyUrl,
        duration("--cacheindex-refresh-interval", cacheIndexRefreshInterval),
        duration("--cachepolicy-push-interval", cachePolicyPushInterval),
        kubeconfig,
        policyTokenFile,
        controllerTokenFile,
        leaseNamespace(),
        duration("--leader-elect-lease-duration", leaseDuration),
        duration("--leader-elect-renew-deadline", renewDeadline),
        duration("--leader-elect-retry-period", retryPeriod));
  }

  private static Duration duration(final String flag, final String value) {
    try {
      return GoDuration.parse(value);
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          StartupException.USAGE, "controller: " + flag + ": " + e.getMessage(), e);
    }
  }

  private String leaseNamespace() {
    if (leaderElectionNamespace != null && !leaderElectionNamespace.isBlank()) {
      return leaderElectionNamespace.strip();
    }
    try {
      if (Files.isReadable(POD_NAMESPACE)) {
        return Files.readString(POD_NAMESPACE, StandardCharsets.UTF_8).strip();
      }
    } catch (IOException e) {
      // fall through to the shipped namespace
    }
    return "inference-cache-system";
  }

  private void configureLogging(final MetricRegistry registry) {
    final LogSettings settings = new LogSettings();
    try {
      settings.setFormat(LogSettings.parseFormat(consoleToText(logFormat)));
      settings.setLevel(LogSettings.parseLevel(logLevel));
    } catch (IllegalArgumentException e) {
      throw new StartupException(StartupException.USAGE, "controller: " + e.getMessage(), e);
    }
    final DefaultLoggingFactory logging = new DefaultLoggingFactory();
    LogConfigurer.apply(settings, logging);
    logging.configure(registry, "controller");
  }

  private static String consoleToText(final String format) {
    return "console".equals(format) ? "text" : format;
  }

  /**
   * A client from {@code --kubeconfig}, {@code $KUBECONFIG}, the in-cluster config or {@code
   * ~/.kube/config} ({@link KubeAccess}).
   *
   * @throws KubeAccess.Unavailable one line naming what was tried and what to do
   */
  public static ApiClient kubeClient(final Path kubeconfig, final Duration readTimeout)
      throws KubeAccess.Unavailable {
    return KubeAccess.client(
        kubeconfig == null ? null : kubeconfig.toString(),
        KubeAccess.Order.CLUSTER_THEN_HOME,
        null,
        readTimeout);
  }

  private static String identity() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "controller";
    }
    return host + "_" + UUID.randomUUID();
  }
}
