package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Condition;
import java.util.List;
import java.util.Objects;

/**
 * The events a persisted status change is worth on the CacheBackend ({@code events.k8s.io/v1},
 * reporting controller {@code cachebackend-controller}, reason = action). Computed from the status
 * before and after one reconcile, so a steady state emits nothing.
 */
final class TransitionEvents {
  static final String REPORTER = "cachebackend-controller";

  private TransitionEvents() {}

  static void emit(
      final EventRecorder events,
      final CacheBackend cr,
      final CacheBackend.Status old,
      final CacheBackend.Status now) {
    final List<V1Condition> was = old.conditions;
    final List<V1Condition> is = now.conditions;
    final String readyWas = Conditions.reason(was, ReadyRules.READY);
    final String readyIs = Conditions.reason(is, ReadyRules.READY);
    final boolean degradedWas = Conditions.is(was, ReadyRules.DEGRADED, Conditions.TRUE);
    final boolean degradedIs = Conditions.is(is, ReadyRules.DEGRADED, Conditions.TRUE);
    final String degradedWasReason = Conditions.reason(was, ReadyRules.DEGRADED);
    final String degradedIsReason = Conditions.reason(is, ReadyRules.DEGRADED);
    if (!degradedWas && degradedIs && !ReadyRules.NO_EVENTS.equals(degradedIsReason)) {
      warn(events, cr, "BackendDegraded", message(is, ReadyRules.DEGRADED));
    }
    if (degradedWas
        && Conditions.is(is, ReadyRules.READY, Conditions.TRUE)
        && !ReadyRules.NO_EVENTS.equals(degradedWasReason)) {
      normal(events, cr, "BackendRecovered", message(is, ReadyRules.READY));
    }
    if (ReadyRules.AWAITING.equals(readyIs) && !ReadyRules.AWAITING.equals(readyWas)) {
      normal(events, cr, ReadyRules.AWAITING, message(is, ReadyRules.READY));
    }
    if (old.firstKVEventObservedAt == null && now.firstKVEventObservedAt != null) {
      normal(events, cr, ReadyRules.OBSERVED, message(is, ReadyRules.READY));
    }
    if (ReadyRules.NO_EVENTS.equals(readyIs) && !ReadyRules.NO_EVENTS.equals(readyWas)) {
      warn(events, cr, ReadyRules.NO_EVENTS, message(is, ReadyRules.READY));
    }
    if (!Boolean.FALSE.equals(old.failOpen) && Boolean.FALSE.equals(now.failOpen)) {
      warn(
          events,
          cr,
          "FailClosedEnabled",
          "integration.failOpen is false: engines stop serving when the cache hierarchy is down");
    }
    if (Boolean.FALSE.equals(old.failOpen) && Boolean.TRUE.equals(now.failOpen)) {
      normal(events, cr, "FailOpenRestored", "integration.failOpen is true again");
    }
    if (now.engineSelectorMessage != null
        && Integer.valueOf(0).equals(now.matchedEnginePods)
        && (!Objects.equals(old.engineSelectorMessage, now.engineSelectorMessage)
            || !Integer.valueOf(0).equals(old.matchedEnginePods))) {
      normal(events, cr, "EngineSelectorUnmatched", now.engineSelectorMessage);
    }
    if (Conditions.get(was, EngineCompatibilityVerdict.TYPE) == null
        && Conditions.get(is, EngineCompatibilityVerdict.TYPE) != null) {
      warn(
          events,
          cr,
          EngineCompatibilityVerdict.CRASH_LOOPING,
          message(is, EngineCompatibilityVerdict.TYPE));
    }
    conditionChange(events, cr, was, is, ConnectorReadiness.TYPE);
    conditionChange(events, cr, was, is, ReadyRules.REMOTE_STORAGE_READY);
  }

  /** A change of {@code type}'s status, reason or observed generation: reason = its reason. */
  private static void conditionChange(
      final EventRecorder events,
      final CacheBackend cr,
      final List<V1Condition> was,
      final List<V1Condition> is,
      final String type) {
    final V1Condition a = Conditions.get(was, type);
    final V1Condition b = Conditions.get(is, type);
    if (b == null) {
      return;
    }
    if (a != null
        && a.getStatus().equals(b.getStatus())
        && a.getReason().equals(b.getReason())
        && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())) {
      return;
    }
    if (Conditions.TRUE.equals(b.getStatus())) {
      normal(events, cr, b.getReason(), b.getMessage());
    } else {
      warn(events, cr, b.getReason(), b.getMessage());
    }
  }

  private static String message(final List<V1Condition> list, final String type) {
    final V1Condition c = Conditions.get(list, type);
    return c == null || c.getMessage() == null ? "" : c.getMessage();
  }

  private static void normal(
      final EventRecorder events, final CacheBackend cr, final String reason, final String note) {
    events.normal(cr.reference(), reason, note);
  }

  private static void warn(
      final EventRecorder events, final CacheBackend cr, final String reason, final String note) {
    events.warning(cr.reference(), reason, note);
  }
}
