package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.metrics.MeteredQueue;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.WorkQueue;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PDTopology side of the controller: its informer (in the factory that also holds the cluster's
 * pods, so pods are watched once), the push of {@code /pd-topologies} beside the policy push, and —
 * while leading — the reconciler on a rate-limited queue fed by topology changes and by the pod
 * changes of their namespaces (an added or deleted pod, or one whose labels, phase, node or
 * deletion mark changed).
 */
public final class RoutingControllers {
  private static final Logger LOG = LoggerFactory.getLogger(RoutingControllers.class);

  /** The server path of the topology set, beside {@code /policy}. */
  public static final String PD_TOPOLOGIES = "pd-topologies";

  /** The server path of the template set, beside {@code /policy}. */
  public static final String PROMPT_TEMPLATES = "prompt-templates";

  /** {@code reportingController} of the PDTopology events. */
  public static final String PD_REPORTER = "pdtopology-controller";

  /** {@code reportingController} of the PromptTemplate events. */
  public static final String TEMPLATE_REPORTER = "prompttemplate-controller";

  /** How long the reconcilers wait for the first list of their caches. */
  static final Duration SYNC_WAIT = Duration.ofMinutes(2);

  private final SharedInformerFactory factory;
  private final SharedIndexInformer<PDTopology> topologies;
  private final SharedIndexInformer<PromptTemplate> templates;
  private final SharedIndexInformer<V1Pod> pods;
  private final StatusWriter writer;
  private final EventRecorder pdEvents;
  private final ControllerMetrics.Reconciles pdMetrics;
  private final EventRecorder templateEvents;
  private final ControllerMetrics.Reconciles templateMetrics;
  private final SetPush templatePush;
  private final BooleanSupplier leader;
  private final SetPush pdPush;
  private final List<Controller> running = new ArrayList<>();

  /**
   * @param factory the factory holding {@code pods}; the caller starts it
   * @param policyUrl the server's {@code /policy}; the sets go to its siblings
   * @param policyTokenFile the policy-audience bearer token, as for the policy push
   */
  public RoutingControllers(
      final ApiClient client,
      final ApiClient watchClient,
      final SharedInformerFactory factory,
      final SharedIndexInformer<V1Pod> pods,
      final String policyUrl,
      final Path policyTokenFile,
      final String identity,
      final ControllerMetrics metrics,
      final BooleanSupplier leader) {
    this.factory = factory;
    this.pods = pods;
    this.leader = leader;
    this.writer = new StatusWriter(client);
    this.pdEvents = new EventRecorder(client, PD_REPORTER, identity);
    this.pdMetrics = metrics.controller(controllerName(PDTopology.CRD));
    this.topologies = informer(watchClient, PDTopology.CRD);
    this.templateEvents = new EventRecorder(client, TEMPLATE_REPORTER, identity);
    this.templateMetrics = metrics.controller(controllerName(PromptTemplate.CRD));
    this.templates = informer(watchClient, PromptTemplate.CRD);
    final ServerBridge bridge = new ServerBridge();
    final Lister<PDTopology> topologyLister = new Lister<>(topologies.getIndexer());
    final Lister<V1Pod> podLister = new Lister<>(pods.getIndexer());
    this.pdPush =
        new SetPush(
            PDTopology.CRD.kind(),
            () ->
                topologies.hasSynced() && pods.hasSynced()
                    ? PdTopologyBody.build(
                        topologyLister.list(), ns -> podLister.namespace(ns).list())
                    : null,
            bridge,
            SetPush.sibling(policyUrl, PD_TOPOLOGIES),
            policyTokenFile,
            leader,
            Clock.systemUTC());
    final Lister<PromptTemplate> templateLister = new Lister<>(templates.getIndexer());
    this.templatePush =
        new SetPush(
            PromptTemplate.CRD.kind(),
            () -> templates.hasSynced() ? PromptTemplateBody.build(templateLister.list()) : null,
            bridge,
            SetPush.sibling(policyUrl, PROMPT_TEMPLATES),
            policyTokenFile,
            leader,
            Clock.systemUTC());
  }

  /** The name of the reconciler of {@code kind} (metrics label, thread names). */
  static String controllerName(final CrdKind<?, ?> kind) {
    return kind.plural() + "-controller";
  }

  private <O extends CustomResource<?, ?>> SharedIndexInformer<O> informer(
      final ApiClient watchClient, final CrdKind<O, ?> kind) {
    return factory.sharedIndexInformerFor(kind.api(watchClient), kind.type(), 0);
  }

  /** The pushes, for the periodic tick (the caller schedules them at the push interval). */
  public List<SetPush> pushes() {
    return List.of(pdPush, templatePush);
  }

  /** Whether every cache has listed once. */
  public boolean synced() {
    return topologies.hasSynced() && templates.hasSynced() && pods.hasSynced();
  }

  /** Builds and starts the reconcilers on daemon threads. */
  public synchronized void startLeading() {
    final long deadline = System.nanoTime() + SYNC_WAIT.toNanos();
    while (!synced() && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    final MeteredQueue pdQueue =
        new MeteredQueue(
            Executors.newSingleThreadExecutor(r -> daemon(r, "pdtopologies-backoff")), pdMetrics);
    pdMetrics.depth(pdQueue::length);
    final PdTopologyReconciler pd =
        new PdTopologyReconciler(
            new Lister<>(topologies.getIndexer()),
            new Lister<>(pods.getIndexer()),
            writer,
            pdEvents,
            pdPush,
            pdMetrics,
            leader,
            Clock.systemUTC());
    running.add(controller(PDTopology.CRD, pdQueue, pd, this::synced));
    pods.addEventHandler(new PodChanges(pdQueue, new Lister<>(topologies.getIndexer())));
    final MeteredQueue templateQueue =
        new MeteredQueue(
            Executors.newSingleThreadExecutor(r -> daemon(r, "prompttemplates-backoff")),
            templateMetrics);
    templateMetrics.depth(templateQueue::length);
    final PromptTemplateReconciler tpl =
        new PromptTemplateReconciler(
            new Lister<>(templates.getIndexer()),
            writer,
            templateEvents,
            templatePush,
            templateMetrics,
            leader,
            Clock.systemUTC());
    running.add(controller(PromptTemplate.CRD, templateQueue, tpl, templates::hasSynced));
    for (final Controller c : running) {
      final Thread t =
          daemon(
              () -> {
                try {
                  c.run();
                } catch (RuntimeException | Error e) {
                  LOG.error("routing reconciler stopped", e);
                  throw e;
                }
              },
              "controller-routing-" + running.indexOf(c));
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

  private <O extends CustomResource<?, ?>> Controller controller(
      final CrdKind<O, ?> kind,
      final MeteredQueue queue,
      final Reconciler reconciler,
      final java.util.function.Supplier<Boolean> ready) {
    // The queue first: watch() binds each handler to the builder's queue of that moment.
    return ControllerBuilder.defaultBuilder(factory)
        .withWorkQueue(queue)
        .watch(
            q ->
                ControllerBuilder.controllerWatchBuilder(kind.type(), q)
                    .withWorkQueueKeyFunc(
                        o -> new Request(o.getMetadata().getNamespace(), o.getMetadata().getName()))
                    .build())
        .withReconciler(reconciler)
        .withName(controllerName(kind))
        .withWorkerCount(1)
        .withReadyFunc(ready)
        .withReadyTimeout(SYNC_WAIT)
        .build();
  }

  private static Thread daemon(final Runnable r, final String name) {
    final Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Enqueues every PDTopology of a changed pod's namespace. */
  private static final class PodChanges implements ResourceEventHandler<V1Pod> {
    private final WorkQueue<Request> queue;
    private final Lister<PDTopology> topologies;

    PodChanges(final WorkQueue<Request> queue, final Lister<PDTopology> topologies) {
      this.queue = queue;
      this.topologies = topologies;
    }

    private void enqueue(final V1Pod pod) {
      if (pod == null || pod.getMetadata() == null) {
        return;
      }
      final String ns = pod.getMetadata().getNamespace();
      for (final PDTopology t : topologies.namespace(ns).list()) {
        queue.add(new Request(ns, t.getMetadata().getName()));
      }
    }

    @Override
    public void onAdd(final V1Pod pod) {
      enqueue(pod);
    }

    @Override
    public void onUpdate(final V1Pod was, final V1Pod is) {
      if (moved(was, is)) {
        enqueue(is);
      }
    }

    @Override
    public void onDelete(final V1Pod pod, final boolean finalStateUnknown) {
      enqueue(pod);
    }

    /** Whether a pool could see the change: labels, phase, node or deletion mark. */
    static boolean moved(final V1Pod a, final V1Pod b) {
      return !Objects.equals(labels(a), labels(b))
          || !Objects.equals(phase(a), phase(b))
          || !Objects.equals(node(a), node(b))
          || !Objects.equals(
              a.getMetadata().getDeletionTimestamp(), b.getMetadata().getDeletionTimestamp());
    }

    private static Map<String, String> labels(final V1Pod p) {
      return p.getMetadata().getLabels();
    }

    private static String phase(final V1Pod p) {
      return p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    private static String node(final V1Pod p) {
      return p.getSpec() == null ? null : p.getSpec().getNodeName();
    }
  }
}
