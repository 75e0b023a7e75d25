package io.inferencecache.controlplane.controller;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.controller.backend.BackendControllers;
import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.metrics.MeteredQueue;
import io.inferencecache.controlplane.controller.routing.RoutingControllers;
import io.inferencecache.controlplane.controller.routing.SetPush;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the controller: one typed informer per kind, all in one factory (caches run on every
 * replica, so a new leader starts warm), and — while leading — the two push controllers
 * (rate-limited work queues), the periodic push and the snapshot poller. Leadership lost ends
 * {@link #run()}: the caller exits, so leader-only work stops within the renew deadline.
 */
public final class ControllerRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControllerRuntime.class);

  private final ControllerOptions options;
  private final ApiClient client;
  private final String identity;
  private final AtomicBoolean leading = new AtomicBoolean();
  private final SharedInformerFactory factory;
  private final List<Controller> controllers = new ArrayList<>();
  private final ScheduledExecutorService ticks =
      Executors.newScheduledThreadPool(2, r -> Daemons.thread(r, "controller-tick"));
  private final CountDownLatch closed = new CountDownLatch(1);
  private final SharedIndexInformer<CachePolicy> policies;
  private final SharedIndexInformer<CacheTenant> tenants;
  private final SharedIndexInformer<CacheIndexResource> indices;
  private final PolicyPush push;
  private final CacheIndexPoller poller;
  private final EventRecorder events;
  private final BackendControllers backends;
  private final RoutingControllers routing;
  private final ControllerMetrics metrics;
  private final Map<CrdKind<?, ?>, ControllerMetrics.Reconciles> reconciles = new HashMap<>();
  private volatile LeaderElector elector;

  /** A runtime with metrics in a registry of its own (nothing serves them). */
  public ControllerRuntime(
      final ControllerOptions options,
      final ApiClient client,
      final ApiClient watchClient,
      final String identity) {
    this(options, client, watchClient, identity, new ControllerMetrics(new MetricRegistry()), "");
  }

  /** A runtime without the CacheBackend probe gate. */
  public ControllerRuntime(
      final ControllerOptions options,
      final ApiClient client,
      final ApiClient watchClient,
      final String identity,
      final ControllerMetrics metrics) {
    this(options, client, watchClient, identity, metrics, "");
  }

  /**
   * @param client for requests (bounded read timeout)
   * @param watchClient for informer list+watch (no read timeout)
   * @param metrics where the controllers' series go (each present from here on)
   * @param probeUrl {@code /probe} of the server for the CacheBackend probe gate; empty disables it
   */
  public ControllerRuntime(
      final ControllerOptions options,
      final ApiClient client,
      final ApiClient watchClient,
      final String identity,
      final ControllerMetrics metrics,
      final String probeUrl) {
    this.options = options;
    this.metrics = metrics;
    for (final CrdKind<?, ?> k : List.of(CachePolicy.CRD, CacheTenant.CRD)) {
      reconciles.put(k, metrics.controller(controllerName(k)));
    }
    this.client = client;
    this.identity = identity;
    this.factory = new SharedInformerFactory(watchClient);
    this.policies = informer(watchClient, CachePolicy.CRD);
    this.tenants = informer(watchClient, CacheTenant.CRD);
    this.indices = informer(watchClient, CacheIndexResource.CRD);
    final ServerBridge bridge = new ServerBridge();
    this.push =
        new PolicyPush(
            () -> policies.hasSynced() ? policies.getIndexer().list() : null,
            () -> tenants.hasSynced() ? tenants.getIndexer().list() : null,
            bridge,
            options.serverPolicyUrl(),
            options.policyTokenFile(),
            leading::get);
    this.poller =
        new CacheIndexPoller(
            new Lister<>(indices.getIndexer()),
            CacheIndexResource.CRD.api(client),
            new Lister<>(tenants.getIndexer()),
            new StatusWriter(client),
            bridge,
            options.serverSnapshotUrl(),
            options.controllerTokenFile(),
            leading::get,
            Clock.systemUTC());
    this.events = new EventRecorder(client, EventRecorder.CONTROLLER, identity);
    this.backends =
        new BackendControllers(
            client,
            watchClient,
            probeUrl,
            options.controllerTokenFile(),
            identity,
            metrics,
            leading::get);
    this.routing =
        new RoutingControllers(
            client,
            watchClient,
            backends.informers(),
            backends.pods(),
            options.serverPolicyUrl(),
            options.policyTokenFile(),
            identity,
            metrics,
            leading::get);
    poller.onSnapshot(backends.participation());
    metrics.snapshotPolls();
    poller.onPoll(metrics::snapshotPoll);
  }

  /** The CacheBackend reconcilers (tests). */
  public BackendControllers backends() {
    return backends;
  }

  /** The PDTopology and PromptTemplate reconcilers and their pushes (tests). */
  public RoutingControllers routing() {
    return routing;
  }

  /** The name of the push controller fed by {@code kind} (metrics label, thread names). */
  static String controllerName(final CrdKind<?, ?> kind) {
    return kind.plural() + "-policy-push";
  }

  private <O extends CustomResource<?, ?>> SharedIndexInformer<O> informer(
      final ApiClient watchClient, final CrdKind<O, ?> kind) {
    return factory.sharedIndexInformerFor(kind.api(watchClient), kind.type(), 0);
  }

  /**
   * Runs until closed (returns 0) or until leadership is lost (returns 1).
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public int run() throws InterruptedException {
    factory.startAllRegisteredInformers();
    backends.startInformers();
    if (!options.leaderElect()) {
      startLeading();
      closed.await();
      return 0;
    }
    final LeaseLock lock =
        new LeaseLock(
            options.leaderElectionNamespace(), ControllerOptions.LEADER_LOCK, identity, client);
    final LeaderElector e =
        new LeaderElector(
            new LeaderElectionConfig(
                lock, options.leaseDuration(), options.renewDeadline(), options.retryPeriod()));
    this.elector = e;
    LOG.info("waiting for leadership of lease {} as {}", lock.describe(), identity);
    e.run(this::startLeading, this::stopLeading);
    if (closed.getCount() == 0) {
      return 0;
    }
    LOG.error("leader election lost: lease {} is no longer held by {}", lock.describe(), identity);
    return 1;
  }

  private synchronized void startLeading() {
    if (closed.getCount() == 0 || leading.get()) {
      return;
    }
    LOG.info("leading as {}", identity);
    awaitSync();
    leading.set(true);
    metrics.leading(true);
    controllers.add(pushController(CachePolicy.CRD, policies));
    controllers.add(pushController(CacheTenant.CRD, tenants));
    for (final Controller c : controllers) {
      final Thread t = Daemons.thread(c, "controller-" + controllers.indexOf(c));
      t.start();
    }
    backends.startLeading();
    routing.startLeading();
    ticks.scheduleWithFixedDelay(
        push::tick, 0, positive(options.cachePolicyPushInterval()), TimeUnit.MILLISECONDS);
    for (final SetPush p : routing.pushes()) {
      ticks.scheduleWithFixedDelay(
          p::tick, 0, positive(options.cachePolicyPushInterval()), TimeUnit.MILLISECONDS);
    }
    ticks.scheduleWithFixedDelay(
        poller::refresh, 0, positive(options.cacheIndexRefreshInterval()), TimeUnit.MILLISECONDS);
  }

  /** Waits (bounded, 30 s) for the first list of each cache, so the first push is complete. */
  private void awaitSync() {
    final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline
        && !(policies.hasSynced() && tenants.hasSynced() && indices.hasSynced())) {
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  private static long positive(final Duration d) {
    return d == null || d.isZero() || d.isNegative() ? 30_000 : d.toMillis();
  }

  private synchronized void stopLeading() {
    leading.set(false);
    metrics.leading(false);
    ticks.shutdownNow();
    for (final Controller c : controllers) {
      c.shutdown();
    }
    controllers.clear();
    backends.stopLeading();
    routing.stopLeading();
  }

  private <O extends CustomResource<?, ?>> Controller pushController(
      final CrdKind<O, ?> kind, final SharedIndexInformer<O> informer) {
    final String name = controllerName(kind);
    final ControllerMetrics.Reconciles m = reconciles.get(kind);
    final MeteredQueue queue =
        new MeteredQueue(
            Executors.newSingleThreadExecutor(r -> Daemons.thread(r, name + "-backoff")), m);
    m.depth(queue::length);
    // The queue first: watch() hands the builder's current queue to the event handler at once.
    return ControllerBuilder.defaultBuilder(factory)
        .withWorkQueue(queue)
        .watch(
            q ->
                ControllerBuilder.controllerWatchBuilder(kind.type(), q)
                    .withWorkQueueKeyFunc(
                        o -> new Request(o.getMetadata().getNamespace(), o.getMetadata().getName()))
                    .build())
        .withReconciler(
            new PolicyPushReconciler(kind, new Lister<>(informer.getIndexer()), push, events, m))
        .withName(name)
        .withWorkerCount(1)
        .withReadyFunc(informer::hasSynced)
        .build();
  }

  /** Stops leader work, releases the lease and stops the caches. */
  @Override
  public void close() {
    if (closed.getCount() == 0) {
      return;
    }
    closed.countDown();
    stopLeading();
    final LeaderElector e = elector;
    if (e != null) {
      e.close();
    }
    factory.stopAllRegisteredInformers();
    backends.close();
  }
}
