package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.cache.Lister;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one changed CachePolicy or CacheTenant by pushing the whole snapshot (the request's
 * identity only names who hears about a failure). A failed push is a Warning event {@code
 * PolicyPushFailed} on the object, carrying the server's own message, and a rate-limited requeue.
 */
public final class PolicyPushReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPushReconciler.class);

  /** The event reason (and action) of a failed push. */
  public static final String PUSH_FAILED = "PolicyPushFailed";

  private final CrdKind<?, ?> kind;
  private final Lister<? extends CustomResource<?, ?>> lister;
  private final PolicyPush push;
  private final EventRecorder events;
  private final ControllerMetrics.Reconciles metrics;

  public PolicyPushReconciler(
      final CrdKind<?, ?> kind,
      final Lister<? extends CustomResource<?, ?>> lister,
      final PolicyPush push,
      final EventRecorder events,
      final ControllerMetrics.Reconciles metrics) {
    this.kind = kind;
    this.lister = lister;
    this.push = push;
    this.events = events;
    this.metrics = metrics;
  }

  @Override
  public Result reconcile(final Request request) {
    try {
      push.push();
      metrics.reconciled(ControllerMetrics.Outcome.SUCCESS);
      return new Result(false);
    } catch (IOException e) {
      final String message =
          e instanceof ServerBridge.BridgeException b
              ? "server refused the policy (" + b.status() + "): " + b.serverMessage()
              : "policy push failed: " + e;
      LOG.warn("{} {}: {}", kind.kind(), request, message);
      metrics.reconciled(ControllerMetrics.Outcome.ERROR);
      final CustomResource<?, ?> obj =
          lister.namespace(request.getNamespace()).get(request.getName());
      if (obj != null) {
        events.warning(obj.reference(), PUSH_FAILED, message);
      }
      return new Result(true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      metrics.reconciled(ControllerMetrics.Outcome.REQUEUE);
      return new Result(true);
    }
  }
}
