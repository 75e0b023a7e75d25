package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.backend.Conditions;
import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.ConditionedStatus;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Condition;
import java.io.IOException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconcile of a kind whose status is a {@code Ready} verdict (PDTopology, PromptTemplate):
 * compute the status from the cached object, write it ({@code PUT .../status}, guarded by the
 * object's {@code resourceVersion}) only when it changed, emit an event when {@code Ready}'s status
 * or reason moved (Normal when True, Warning otherwise, reason = the condition's), then push the
 * kind's whole set. A deleted object only pushes. A failed push is a Warning event {@code
 * <Kind>PushFailed} with the server's message and a rate-limited retry; a 409 is a retry.
 *
 * @param <O> the kind
 * @param <S> its status
 */
abstract class ReadyReconciler<O extends CustomResource<?, S>, S extends ConditionedStatus>
    implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(ReadyReconciler.class);

  /** The condition type both kinds carry. */
  static final String READY = "Ready";

  private final CrdKind<O, ?> kind;
  private final Class<S> statusType;
  private final Lister<O> lister;
  private final StatusWriter writer;
  private final EventRecorder events;
  private final SetPush push;
  private final ControllerMetrics.Reconciles metrics;
  private final BooleanSupplier leader;
  private final Clock clock;

  ReadyReconciler(
      final CrdKind<O, ?> kind,
      final Class<S> statusType,
      final Lister<O> lister,
      final StatusWriter writer,
      final EventRecorder events,
      final SetPush push,
      final ControllerMetrics.Reconciles metrics,
      final BooleanSupplier leader,
      final Clock clock) {
    this.kind = kind;
    this.statusType = statusType;
    this.lister = lister;
    this.writer = writer;
    this.events = events;
    this.push = push;
    this.metrics = metrics;
    this.leader = leader;
    this.clock = clock;
  }

  /** The event reason of a failed push, e.g. {@code PDTopologyPushFailed}. */
  String pushFailed() {
    return kind.kind() + "PushFailed";
  }

  /**
   * The status {@code cr} should have.
   *
   * @param old its current status (a copy; never null)
   * @param now the time of a condition transition, whole seconds
   */
  abstract S status(O cr, S old, OffsetDateTime now);

  @Override
  public Result reconcile(final Request request) {
    if (!leader.getAsBoolean()) {
      return new Result(false);
    }
    try {
      final Result r = reconcileOnce(request);
      metrics.reconciled(
          r.isRequeue() ? ControllerMetrics.Outcome.ERROR : ControllerMetrics.Outcome.SUCCESS);
      return r;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      metrics.reconciled(ControllerMetrics.Outcome.REQUEUE);
      return new Result(true);
    } catch (RuntimeException e) {
      LOG.error("{} {} reconcile failed", kind.kind(), request, e);
      metrics.reconciled(ControllerMetrics.Outcome.ERROR);
      return new Result(true);
    }
  }

  private Result reconcileOnce(final Request request) throws InterruptedException {
    final O cached = lister.namespace(request.getNamespace()).get(request.getName());
    if (cached == null) {
      return push(request, null);
    }
    @SuppressWarnings("unchecked")
    final O cr = CrText.copy(cached, (Class<O>) cached.getClass());
    final S old = cr.getStatus() == null ? newStatus() : CrText.copy(cr.getStatus(), statusType);
    final OffsetDateTime now =
        OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    final S st = status(cr, CrText.copy(old, statusType), now);
    Conditions.keepTransitionTimes(old.conditions, st.conditions);
    if (!JSON.serialize(old).equals(JSON.serialize(st))) {
      cr.setStatus(st);
      try {
        writer.replaceStatus(kind, cr);
      } catch (ApiException e) {
        if (e.getCode() == 409) {
          LOG.info("{} {} changed meanwhile (or the cache lags); retried", kind.kind(), request);
        } else {
          LOG.warn("{} {} status not written: {}", kind.kind(), request, StatusWriter.message(e));
        }
        return new Result(true);
      }
      readyEvent(cr, Conditions.get(old.conditions, READY), Conditions.get(st.conditions, READY));
    }
    return push(request, cr);
  }

  private S newStatus() {
    try {
      return statusType.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(statusType + " has no public no-argument constructor", e);
    }
  }

  private void readyEvent(final O cr, final V1Condition was, final V1Condition is) {
    if (is == null
        || was != null
            && Objects.equals(was.getStatus(), is.getStatus())
            && Objects.equals(was.getReason(), is.getReason())) {
      return;
    }
    if (Conditions.TRUE.equals(is.getStatus())) {
      events.normal(cr.reference(), is.getReason(), is.getMessage());
    } else {
      events.warning(cr.reference(), is.getReason(), is.getMessage());
    }
  }

  private Result push(final Request request, final O cr) throws InterruptedException {
    try {
      push.onChange();
      return new Result(false);
    } catch (IOException e) {
      final String message =
          e instanceof ServerBridge.BridgeException b
              ? "server refused the "
                  + kind.kind()
                  + " set ("
                  + b.status()
                  + "): "
                  + b.serverMessage()
              : kind.kind() + " push to " + push.url() + " failed: " + e;
      LOG.warn("{} {}: {}", kind.kind(), request, message);
      if (cr != null) {
        events.warning(cr.reference(), pushFailed(), message);
      }
      return new Result(true);
    }
  }
}
