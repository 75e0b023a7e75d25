package io.inferencecache.controlplane.server;

import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import io.inferencecache.controlplane.server.auth.AuthLog;
import io.inferencecache.controlplane.server.auth.BearerAuthenticator;
import io.inferencecache.controlplane.server.auth.TokenCache;
import io.inferencecache.controlplane.server.auth.TokenReviewer;
import io.inferencecache.controlplane.server.config.AuthSettings;
import io.inferencecache.controlplane.server.config.ControlPlaneConfiguration;
import io.inferencecache.controlplane.server.core.GrpcContext;
import io.inferencecache.controlplane.server.core.GrpcLifecycle;
import io.inferencecache.controlplane.server.core.GrpcLifecycleFactory;
import io.inferencecache.controlplane.server.core.GrpcManaged;
import io.inferencecache.controlplane.server.core.IndexLifecycle;
import io.inferencecache.controlplane.server.core.Readiness;
import io.inferencecache.controlplane.server.core.ReplicationLifecycle;
import io.inferencecache.controlplane.server.core.ServerEvents;
import io.inferencecache.controlplane.server.health.ReadinessHealthCheck;
import io.inferencecache.controlplane.server.metrics.AuthMetrics;
import io.inferencecache.controlplane.server.metrics.IndexMetrics;
import io.inferencecache.controlplane.server.metrics.PrometheusMetricSource;
import io.inferencecache.controlplane.server.metrics.RouteMetrics;
import io.inferencecache.controlplane.server.metrics.ServerMetrics;
import io.inferencecache.controlplane.server.probe.Prober;
import io.inferencecache.controlplane.server.resources.Authentication;
import io.inferencecache.controlplane.server.resources.Endpoint;
import io.inferencecache.controlplane.server.resources.HealthEndpoints;
import io.inferencecache.controlplane.server.resources.ListenerRouter;
import io.inferencecache.controlplane.server.resources.MetricsEndpoint;
import io.inferencecache.controlplane.server.resources.PdTopologyEndpoint;
import io.inferencecache.controlplane.server.resources.PolicyEndpoint;
import io.inferencecache.controlplane.server.resources.ProbeEndpoint;
import io.inferencecache.controlplane.server.resources.SnapshotEndpoint;
import io.inferencecache.service.server.BindAddress;
import io.inferencecache.service.server.GrpcServerConfig;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server application ({@code serve}): wires the index, the gRPC server, metrics, the two HTTP
 * listeners and authentication. Logic lives in the role packages; this class only builds objects
 * and registers them. Start order: index → gRPC → listeners → ready; stop order: not ready →
 * listeners → gRPC drain → index close (see {@link ServerEvents}).
 */
public final class ControlPlaneApplication extends Application<ControlPlaneConfiguration> {
  private static final Logger LOG = LoggerFactory.getLogger("io.inferencecache.controlplane");

  private final GrpcLifecycleFactory grpcFactory;
  private TokenReviewer reviewer;
  private Wiring wiring;

  /** What {@link #run} built, for the launcher and tests. */
  public record Wiring(
      IndexLifecycle index,
      GrpcManaged grpc,
      Readiness readiness,
      ServerEvents events,
      RouteMetrics routeMetrics) {}

  /**
   * @param grpcFactory builds the gRPC server once the index is open
   */
  public ControlPlaneApplication(final GrpcLifecycleFactory grpcFactory) {
    this.grpcFactory = grpcFactory;
  }

  @Override
  public String getName() {
    return "inference-cache";
  }

  @Override
  public void initialize(final Bootstrap<ControlPlaneConfiguration> bootstrap) {
    bootstrap.setConfigurationSourceProvider(
        new SubstitutingSourceProvider(
            bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
  }

  /** The TokenReview client, set by the launcher after the start-up checks (null: auth off). */
  void reviewer(final TokenReviewer tokenReviewer) {
    this.reviewer = tokenReviewer;
  }

  /** What {@link #run} built; {@code null} before. */
  public Wiring wiring() {
    return wiring;
  }

  @Override
  public void run(final ControlPlaneConfiguration config, final Environment environment) {
    final var registry = environment.metrics();
    final ServerMetrics serverMetrics = new ServerMetrics(registry);
    serverMetrics.up(false);
    serverMetrics.tlsEnabled(config.getTls().enabled());
    final RouteMetrics routeMetrics = new RouteMetrics(registry);
    final IndexMetrics indexMetrics = new IndexMetrics(registry);
    final PrometheusExposition exposition = new PrometheusExposition(registry);
    // StreamCacheEvents / StreamMetrics: every index change, and every inferencecache_* sample
    // of /metrics (the same collector output, so the two never disagree).
    final io.inferencecache.service.streams.IndexChangeFeed changeFeed =
        config.getFeeds().build(new PrometheusMetricSource(exposition));
    final IndexLifecycle index =
        new IndexLifecycle(
            config
                .getIndex()
                .toIndexConfig(
                    io.inferencecache.engine.IndexListeners.compose(indexMetrics, changeFeed)));
    indexMetrics.totals(() -> index.isReady() ? index.get() : null);
    final ReplicationLifecycle replication =
        config.getReplication().enabled()
            ? new ReplicationLifecycle(config.getReplication(), index, changeFeed)
            : null;
    final BindAddress grpcAddress =
        BindAddress.parse(GrpcServerConfig.BIND_ADDRESS_FLAG, config.getListeners().getGrpc());
    final GrpcManaged grpc =
        new GrpcManaged(
            grpcFactory,
            () ->
                new GrpcContext(
                    index.get(),
                    routeMetrics,
                    grpcAddress,
                    config.getTls(),
                    config.getGrpc(),
                    config.getEngine(),
                    changeFeed,
                    replication != null ? replication.forwarder() : null),
            serverMetrics);
    environment.lifecycle().manage(index);
    if (replication != null) {
      replication.rules(() -> grpc.withServer(GrpcLifecycle::ingestRules, null));
      environment.lifecycle().manage(replication);
    }
    environment.lifecycle().manage(grpc);
    if (replication != null) {
      environment.lifecycle().manage(replication.reader());
      serverMetrics.replication(
          () -> replication.connected() ? 1 : 0,
          () -> index.isReady() ? index.get().appliedSequence() : 0,
          () -> replication.ingest() == null ? 0 : replication.ingest().applied(),
          () -> replication.ingest() == null ? 0 : replication.ingest().unreadable(),
          () -> replication.ingest() == null ? 0 : replication.ingest().lastLagMillis(),
          () -> replication.forwarding() == null ? 0 : replication.forwarding().forwarded(),
          () -> replication.forwarding() == null ? 0 : replication.forwarding().appliedLocally());
      serverMetrics.replicationResyncs(
          () -> replication.forwarding() == null ? 0 : replication.forwarding().resyncRequests(),
          () -> replication.forwarding() == null ? 0 : replication.forwarding().resyncsPending());
    }
    serverMetrics.grpcConnections(
        () -> grpc.withServer(GrpcLifecycle::openConnections, 0L),
        () -> grpc.withServer(GrpcLifecycle::refusedConnections, 0L));
    serverMetrics.grpcCallsShed(() -> grpc.withServer(GrpcLifecycle::shedCalls, 0L));
    serverMetrics.ingestDrops(
        r -> grpc.withServer(s -> s.ingestEntriesDropped(r), 0L),
        r -> grpc.withServer(s -> s.ingestUpdatesDropped(r), 0L));
    serverMetrics.ingested(w -> grpc.withServer(s -> s.ingested(w), 0L));

    final Readiness readiness =
        replication != null
            ? new Readiness(index::isReady, grpc::serving, replication::caughtUp)
            : new Readiness(index::isReady, grpc::serving);
    final ServerEvents events = new ServerEvents(readiness, serverMetrics, grpcAddress.toString());
    environment.lifecycle().addServerLifecycleListener(events::serverStarted);
    environment.lifecycle().addEventListener(events);
    environment.healthChecks().register("readiness", new ReadinessHealthCheck(readiness));

    final AuthSettings auth = config.getAuth();
    final Semaphore reviews = new Semaphore(auth.getMaxConcurrentReviews());
    final AuthLog authLog =
        new AuthLog(
            auth.getRejectionLogLimit(),
            auth.getRejectionLogInterval().toNanoseconds(),
            System::nanoTime);
    final BearerAuthenticator snapshotAuth =
        authenticator(
            config,
            reviews,
            authLog,
            auth.getControllerAudience(),
            registry,
            MetricFamily.SNAPSHOT_AUTH);
    final BearerAuthenticator policyAuth =
        authenticator(
            config, reviews, authLog, auth.getPolicyAudience(), registry, MetricFamily.POLICY_AUTH);
    final BearerAuthenticator probeAuth =
        authenticator(
            config,
            reviews,
            authLog,
            auth.getControllerAudience(),
            registry,
            MetricFamily.PROBE_AUTH);
    if (snapshotAuth == null) {
      LOG.warn("controller_auth_disabled");
    } else {
      LOG.info("controller_auth_enabled sa={}", auth.getAllowedControllerSa());
    }

    final Map<String, Endpoint> publicEndpoints =
        Map.of(
            "/healthz", HealthEndpoints.healthz(),
            "/readyz", HealthEndpoints.readyz(readiness),
            "/metrics", new MetricsEndpoint(exposition));
    final Map<String, Endpoint> snapshotEndpoints =
        Map.of(
            "/snapshot", Authentication.require(snapshotAuth, new SnapshotEndpoint(index)),
            "/policy", Authentication.require(policyAuth, new PolicyEndpoint(index)),
            "/pd-topologies",
                Authentication.require(
                    policyAuth, new PdTopologyEndpoint(index, routeMetrics.pd())),
            "/probe",
                Authentication.require(probeAuth, new ProbeEndpoint(new Prober(index, null))));
    environment.jersey().disable();
    environment
        .servlets()
        .addServlet("inferencecache-router", new ListenerRouter(publicEndpoints, snapshotEndpoints))
        .addMapping("/*");

    wiring = new Wiring(index, grpc, readiness, events, routeMetrics);
  }

  private BearerAuthenticator authenticator(
      final ControlPlaneConfiguration config,
      final Semaphore reviews,
      final AuthLog authLog,
      final String audience,
      final com.codahale.metrics.MetricRegistry registry,
      final MetricFamily family) {
    final AuthSettings auth = config.getAuth();
    if (auth.isInsecureDisableAuth()) {
      return null;
    }
    if (reviewer == null) {
      // Fail closed: authentication is on, so a missing reviewer is a wiring error, never "open".
      throw new IllegalStateException("authentication is enabled but no TokenReview client is set");
    }
    return new BearerAuthenticator(
        reviewer,
        audience,
        auth.getAllowedControllerSa(),
        new TokenCache(
            auth.getCacheTtl().toNanoseconds(), auth.getCacheMaxEntries(), System::nanoTime),
        reviews,
        auth.getReviewWait().toNanoseconds(),
        new AuthMetrics(registry, family),
        authLog);
  }
}
