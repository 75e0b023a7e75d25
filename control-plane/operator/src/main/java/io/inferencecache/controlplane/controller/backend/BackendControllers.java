package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.ControllerWatch;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.WorkQueue;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CacheBackend side of the controller: informers for CacheBackends, Deployments, Services and
 * Pods (running on every replica, so a new leader starts warm) and, while leading, the CacheBackend
 * reconciler and the engine-pod event reconciler, each on its own rate-limited queue. The snapshot
 * projection is handed to the poller as a {@link Consumer}.
 */
public final class BackendControllers {
  private static final Logger LOG = LoggerFactory.getLogger(BackendControllers.class);

  /** Minimum gap between two functional probes of one backend. */
  public static final Duration PROBE_INTERVAL = Duration.ofSeconds(30);

  /** How long the reconcilers wait for the first list of every cache. */
  static final Duration SYNC_WAIT = Duration.ofMinutes(2);

  private final SharedInformerFactory factory;
  private final SharedIndexInformer<CacheBackend> backends;
  private final SharedIndexInformer<V1Pod> pods;
  private final SharedIndexInformer<V1Deployment> deployments;
  private final SharedIndexInformer<V1Service> services;
  private final ApiClient client;
  private final EventRecorder events;
  private final EventRecorder podEvents;
  private final BooleanSupplier leader;
  private final ProbeGate probe;
  private final ControllerMetrics metrics;
  private final BackendParticipation participation;
  private final List<Controller> running = new ArrayList<>();

  /**
   * @param probeUrl {@code /probe} of the server; empty disables the probe gate
   * @param controllerTokenFile bearer token of the probe (audience inferencecache.io/controller)
   */
  public BackendControllers(
      final ApiClient client,
      final ApiClient watchClient,
      final String probeUrl,
      final Path controllerTokenFile,
      final String identity,
      final ControllerMetrics metrics,
      final BooleanSupplier leader) {
    this.client = client;
    this.metrics = metrics;
    this.events = new EventRecorder(client, TransitionEvents.REPORTER, identity);
    this.podEvents = new EventRecorder(client, EnginePodEventsReconciler.REPORTER, identity);
    this.leader = leader;
    this.factory = new SharedInformerFactory(watchClient);
    this.backends =
        factory.sharedIndexInformerFor(CacheBackend.CRD.api(watchClient), CacheBackend.class, 0);
    this.pods =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", watchClient),
            V1Pod.class,
            0);
    this.deployments =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(
                V1Deployment.class,
                V1DeploymentList.class,
                "apps",
                "v1",
                "deployments",
                watchClient),
            V1Deployment.class,
            0);
    this.services =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(
                V1Service.class, V1ServiceList.class, "", "v1", "services", watchClient),
            V1Service.class,
            0);
    this.probe =
        new ProbeGate(
            probeUrl == null || probeUrl.isBlank()
                ? null
                : new ProbeClient(probeUrl.strip(), controllerTokenFile),
            PROBE_INTERVAL,
            metrics);
    this.participation =
        new BackendParticipation(
            new Lister<>(backends.getIndexer()), new Lister<>(pods.getIndexer()), client, metrics);
  }

  /** The snapshot projection for the poller (runs only while leading, like the poller). */
  public Consumer<io.inferencecache.controlplane.controller.bridge.ServerSnapshot> participation() {
    return participation;
  }

  /**
   * The informer factory {@link #startInformers} starts: a controller that also needs pods
   * registers its own informers here, so the cluster's pods are watched once.
   */
  public SharedInformerFactory informers() {
    return factory;
  }

  /** The cluster-wide pod cache. */
  public SharedIndexInformer<V1Pod> pods() {
    return pods;
  }

  /** Starts the informers. */
  public void startInformers() {
    factory.startAllRegisteredInformers();
  }

  /** Whether every cache has listed once. */
  public boolean synced() {
    return backends.hasSynced()
        && pods.hasSynced()
        && deployments.hasSynced()
        && services.hasSynced();
  }

  /** Builds and starts the two reconcilers on daemon threads. */
  public synchronized void startLeading() {
    final long deadline = System.nanoTime() + SYNC_WAIT.toNanos();
    while (!synced() && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    LOG.info(
        "cachebackend reconcilers starting (caches synced: backends={} pods={} deployments={}"
            + " services={})",
        backends.hasSynced(),
        pods.hasSynced(),
        deployments.hasSynced(),
        services.hasSynced());
    running.add(backendController());
    running.add(podEventsController());
    for (final Controller c : running) {
      final Thread t =
          new Thread(
              () -> {
                try {
                  c.run();
                } catch (RuntimeException | Error e) {
                  LOG.error("cachebackend reconciler stopped", e);
                  throw e;
                }
              },
              "controller-backend-" + running.indexOf(c));
      t.setDaemon(true);
      t.start();
    }
  }

  /** Stops the reconcilers. */
  public synchronized void stopLeading() {
    for (final Controller c : running) {
      c.shutdown();
    }
    running.clear();
  }

  /** Stops the reconcilers and the informers. */
  public void close() {
    stopLeading();
    factory.stopAllRegisteredInformers();
  }

  private static Request ownerRequest(final KubernetesObject o) {
    final List<V1OwnerReference> refs = o.getMetadata().getOwnerReferences();
    if (refs == null) {
      return null;
    }
    for (final V1OwnerReference r : refs) {
      if (Boolean.TRUE.equals(r.getController())
          && "CacheBackend".equals(r.getKind())
          && CacheBackend.API_VERSION.equals(r.getApiVersion())) {
        return new Request(o.getMetadata().getNamespace(), r.getName());
      }
    }
    return null;
  }

  /** The backend a pod change concerns: its injected-by stamp, else the selector it matches. */
  private Request podRequest(final V1Pod pod) {
    final List<CacheBackend> inNamespace =
        new ArrayList<>(
            new Lister<>(backends.getIndexer()).namespace(pod.getMetadata().getNamespace()).list());
    if (inNamespace.isEmpty()) {
      return null;
    }
    inNamespace.sort(Comparator.comparing((CacheBackend b) -> b.getMetadata().getName()));
    final CacheBackend owner = BackendParticipation.owner(pod, inNamespace);
    return owner == null
        ? null
        : new Request(owner.getMetadata().getNamespace(), owner.getMetadata().getName());
  }

  /** Changes of a {@code kind} object a CacheBackend controls, keyed by that CacheBackend. */
  private static <T extends KubernetesObject> ControllerWatch<T> ownedWatch(
      final Class<T> kind, final WorkQueue<Request> queue) {
    return ControllerBuilder.controllerWatchBuilder(kind, queue)
        .withOnAddFilter(o -> ownerRequest(o) != null)
        .withOnUpdateFilter((a, b) -> ownerRequest(b) != null)
        .withOnDeleteFilter((o, unknown) -> ownerRequest(o) != null)
        .withWorkQueueKeyFunc(BackendControllers::ownerRequest)
        .build();
  }

  private Controller backendController() {
    final CacheBackendReconciler reconciler =
        new CacheBackendReconciler(
            client, new Lister<>(backends.getIndexer()), probe, events, leader, Clock.systemUTC());
    // The queue first: watch() binds each handler to the builder's queue of that moment.
    return ControllerBuilder.defaultBuilder(factory)
        .withWorkQueue(new DefaultRateLimitingQueue<Request>(Executors.newSingleThreadExecutor()))
        .watch(
            q ->
                ControllerBuilder.controllerWatchBuilder(CacheBackend.class, q)
                    .withWorkQueueKeyFunc(
                        o -> new Request(o.getMetadata().getNamespace(), o.getMetadata().getName()))
                    .build())
        .watch(q -> ownedWatch(V1Deployment.class, q))
        .watch(q -> ownedWatch(V1Service.class, q))
        .watch(
            q ->
                ControllerBuilder.controllerWatchBuilder(V1Pod.class, q)
                    .withOnAddFilter(o -> podRequest(o) != null)
                    .withOnUpdateFilter((a, b) -> podRequest(b) != null)
                    .withOnDeleteFilter((o, unknown) -> podRequest(o) != null)
                    .withWorkQueueKeyFunc(this::podRequest)
                    .build())
        .withReconciler(reconciler)
        .withName("cachebackend-controller")
        .withWorkerCount(1)
        .withReadyFunc(this::synced)
        .withReadyTimeout(SYNC_WAIT)
        .build();
  }

  private Controller podEventsController() {
    final EnginePodEventsReconciler reconciler =
        new EnginePodEventsReconciler(new Lister<>(pods.getIndexer()), client, podEvents, leader);
    // The queue first: watch() binds each handler to the builder's queue of that moment.
    return ControllerBuilder.defaultBuilder(factory)
        .withWorkQueue(new DefaultRateLimitingQueue<Request>(Executors.newSingleThreadExecutor()))
        .watch(
            q ->
                ControllerBuilder.controllerWatchBuilder(V1Pod.class, q)
                    .withOnAddFilter(EnginePodEventsReconciler::candidate)
                    .withOnUpdateFilter((a, b) -> false)
                    .withOnDeleteFilter((o, unknown) -> false)
                    .withWorkQueueKeyFunc(
                        o -> new Request(o.getMetadata().getNamespace(), o.getMetadata().getName()))
                    .build())
        .withReconciler(reconciler)
        .withName("engine-pod-events")
        .withWorkerCount(1)
        .withReadyFunc(pods::hasSynced)
        .withReadyTimeout(SYNC_WAIT)
        .build();
  }
}
