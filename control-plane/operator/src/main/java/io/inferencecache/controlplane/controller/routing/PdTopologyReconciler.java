package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.function.BooleanSupplier;

/**
 * Reconciles one PDTopology: its rules ({@link PdTopologyRules}), its pools resolved against the
 * cached pods of its namespace ({@link PoolResolution}), the status {@link PdTopologyVerdict} makes
 * of them, then the push of every topology. Requeued by changes of the object and of the pods of
 * its namespace.
 */
final class PdTopologyReconciler extends ReadyReconciler<PDTopology, PDTopology.Status> {
  private final Lister<V1Pod> pods;

  PdTopologyReconciler(
      final Lister<PDTopology> topologies,
      final Lister<V1Pod> pods,
      final StatusWriter writer,
      final EventRecorder events,
      final SetPush push,
      final ControllerMetrics.Reconciles metrics,
      final BooleanSupplier leader,
      final Clock clock) {
    super(
        PDTopology.CRD,
        PDTopology.Status.class,
        topologies,
        writer,
        events,
        push,
        metrics,
        leader,
        clock);
    this.pods = pods;
  }

  @Override
  PDTopology.Status status(
      final PDTopology cr, final PDTopology.Status old, final OffsetDateTime now) {
    final String ns = cr.getMetadata().getNamespace();
    final PDTopology.Spec spec = cr.getSpec();
    return PdTopologyVerdict.status(
        old,
        cr.generation(),
        PdTopologyRules.check(spec, spec == null ? null : PdTopologyBody.transport(spec)),
        PoolResolution.resolve(spec, pods.namespace(ns).list()),
        ns,
        now);
  }
}
