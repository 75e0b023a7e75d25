package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Service;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one CacheBackend, read from the informer cache (absent = deleted): refresh the
 * multiprocess connector's readiness of a typed LMCache backend ({@link ConnectorReadiness}),
 * dispatch on {@code spec.type}, integration mode and remote-storage ownership (EventsOnly,
 * host-only, External, Managed Redis, or unmanaged; a typed LMCache backend's Ready is composed by
 * {@link ConnectorComposition}), refresh the matched engine pods, write the status once and only
 * when it changed, then emit the transition events of that persisted change. The status write is a
 * replace guarded by the cached object's {@code resourceVersion}, so a cache that lags a write of
 * ours yields a 409 and a retry. Errors (apply, status write) go back to the queue's rate limiter;
 * the periodic cadences (first-event deadline, probe slot, matched pods) are plain requeues.
 */
public final class CacheBackendReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(CacheBackendReconciler.class);

  private final Lister<CacheBackend> backends;
  private final StatusWriter writer;
  private final OwnedWorkload workload;
  private final MatchedPods matched;
  private final OwnedEnginePods ownedPods;
  private final ProbeGate probe;
  private final EventRecorder events;
  private final BooleanSupplier leader;
  private final Clock clock;

  CacheBackendReconciler(
      final ApiClient client,
      final Lister<CacheBackend> backends,
      final ProbeGate probe,
      final EventRecorder events,
      final BooleanSupplier leader,
      final Clock clock) {
    this.backends = backends;
    this.writer = new StatusWriter(client);
    this.workload = new OwnedWorkload(client);
    this.matched = new MatchedPods(client);
    this.ownedPods = new OwnedEnginePods(client);
    this.probe = probe;
    this.events = events;
    this.leader = leader;
    this.clock = clock;
  }

  /** What dispatch decided beside the status. */
  private static final class Outcome {
    Duration requeue;
    Exception error;
    boolean consumesProbeSlot;

    void requeue(final Duration d) {
      if (d != null && (requeue == null || d.compareTo(requeue) < 0)) {
        requeue = d;
      }
    }
  }

  @Override
  public Result reconcile(final Request request) {
    try {
      return reconcileOnce(request);
    } catch (RuntimeException e) {
      LOG.error("cachebackend {} reconcile failed", request, e);
      return new Result(true);
    }
  }

  private Result reconcileOnce(final Request request) {
    if (!leader.getAsBoolean()) {
      return new Result(false);
    }
    final CacheBackend cached = backends.namespace(request.getNamespace()).get(request.getName());
    if (cached == null) {
      probe.forget(request.getNamespace() + "/" + request.getName());
      return new Result(false);
    }
    final CacheBackend cr = CrText.copy(cached, CacheBackend.class);
    LOG.debug("reconciling cachebackend {} (generation {})", request, cr.generation());
    final OffsetDateTime now =
        OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    final CacheBackend.Status old =
        cr.getStatus() == null
            ? new CacheBackend.Status()
            : CrText.copy(cr.getStatus(), CacheBackend.Status.class);
    final CacheBackend.Status st = CrText.copy(old, CacheBackend.Status.class);
    final Outcome out = new Outcome();
    refreshConnector(cr, st, now);
    try {
      dispatch(cr, st, old, now, out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(true);
    } catch (ApiException e) {
      out.error = e;
    }
    out.requeue(matched.refresh(cr, st));
    st.failOpen = Backends.failOpen(cr);
    Conditions.keepTransitionTimes(old.conditions, st.conditions);
    if (!JSON.serialize(old).equals(JSON.serialize(st))) {
      cr.setStatus(st);
      try {
        writer.replaceStatus(CacheBackend.CRD, cr);
      } catch (ApiException e) {
        if (e.getCode() == 409) {
          LOG.info("cachebackend {} changed meanwhile (or the cache lags); retried", request);
          return new Result(true);
        }
        LOG.warn(
            "cachebackend {} status not written: {} {}",
            request,
            e.getCode(),
            e.getResponseBody() == null ? e.getMessage() : e.getResponseBody().strip());
        return new Result(true);
      }
      TransitionEvents.emit(events, cr, old, st);
    }
    if (out.consumesProbeSlot) {
      probe.commit(cr.key(), now.toInstant());
    }
    if (out.error != null) {
      LOG.warn("cachebackend {}: {}", request, message(out.error));
      return new Result(true);
    }
    return out.requeue == null ? new Result(false) : new Result(true, out.requeue);
  }

  /**
   * ConnectorReady and {@code status.connector} of a typed LMCache backend from the pods its
   * selector matches (a failed list keeps both); cleared for every other backend.
   */
  private void refreshConnector(
      final CacheBackend cr, final CacheBackend.Status st, final OffsetDateTime now) {
    if (!ConnectorReadiness.applies(cr) || !hasAdapter(cr)) {
      st.connector = null;
      Conditions.remove(st.conditions, ConnectorReadiness.TYPE);
      return;
    }
    List<V1Pod> pods;
    try {
      pods = matched.selected(cr);
    } catch (ApiException e) {
      LOG.warn(
          "{}: engine pods not listed, connector readiness kept: {} {}",
          cr.key(),
          e.getCode(),
          e.getMessage());
      pods = null;
    }
    ConnectorReadiness.apply(cr, st, pods, cr.generation(), now);
  }

  private static String message(final Exception e) {
    if (e instanceof ApiException a) {
      return a.getCode()
          + " "
          + (a.getResponseBody() == null ? a.getMessage() : a.getResponseBody());
    }
    return e.getMessage();
  }

  /** Whether the webhook has an engine adapter for the backend's (runtime, type). */
  static boolean hasAdapter(final CacheBackend cr) {
    final CacheBackend.EngineRuntime runtime = Backends.spec(cr).runtime;
    if (runtime == null) {
      return false;
    }
    return Backends.type(cr) == CacheBackend.CacheType.LMCACHE
        || runtime == CacheBackend.EngineRuntime.SGLANG;
  }

  private void dispatch(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final CacheBackend.Status old,
      final OffsetDateTime now,
      final Outcome out)
      throws ApiException, InterruptedException {
    final CacheBackend.RemoteStorage rs = Backends.spec(cr).remoteStorage;
    final boolean hiCache = Backends.type(cr) == CacheBackend.CacheType.SGLANG_HICACHE;
    if (Backends.eventsOnly(cr)) {
      if (!hasAdapter(cr)) {
        unmanaged(cr, st);
        return;
      }
      workload.deleteOwned(cr);
      serverless(cr, st, old, now, out, "EventsOnlyActive");
      return;
    }
    if (!hasAdapter(cr)) {
      unmanaged(cr, st);
      return;
    }
    if (rs == null) {
      workload.deleteOwned(cr);
      if (hiCache) {
        unmanaged(cr, st);
        return;
      }
      serverless(cr, st, old, now, out, "HostOnlyActive");
      return;
    }
    if (hiCache || rs.provider != CacheBackend.Provider.REDIS) {
      unmanaged(cr, st);
      return;
    }
    if (rs.ownership == CacheBackend.Ownership.EXTERNAL) {
      workload.deleteOwned(cr);
      external(cr, st, rs, now);
      return;
    }
    managed(cr, st, now, out);
  }

  private void unmanaged(final CacheBackend cr, final CacheBackend.Status st) throws ApiException {
    workload.deleteOwned(cr);
    probe.forget(cr.key());
    st.connector = null;
    st.remoteStorage = null;
    st.firstAvailableAt = null;
    Conditions.remove(
        st.conditions,
        ReadyRules.READY,
        ReadyRules.PROGRESSING,
        ReadyRules.DEGRADED,
        ProbeGate.TYPE,
        KernelCheckVerdict.TYPE,
        ReadyRules.T2_DEGRADED,
        EngineCompatibilityVerdict.TYPE,
        ConnectorReadiness.TYPE,
        ReadyRules.REMOTE_STORAGE_READY);
    st.observedGeneration = cr.generation();
  }

  private void serverless(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final CacheBackend.Status old,
      final OffsetDateTime now,
      final Outcome out,
      final String base) {
    final long gen = cr.generation();
    probe.forget(cr.key());
    final boolean fromServerMode = old.remoteStorage != null;
    st.remoteStorage = null;
    Conditions.remove(
        st.conditions, ReadyRules.REMOTE_STORAGE_READY, ProbeGate.TYPE, ReadyRules.T2_DEGRADED);
    if (Backends.eventsOnly(cr)) {
      Conditions.remove(st.conditions, KernelCheckVerdict.TYPE, EngineCompatibilityVerdict.TYPE);
    }
    final ReadyRules.Verdict ready =
        ConnectorReadiness.applies(cr)
            ? ConnectorComposition.readyBase(cr, st)
            : new ReadyRules.Verdict(
                Conditions.TRUE,
                base,
                "EventsOnlyActive".equals(base)
                    ? "routing only: engines report KV events, nothing is provisioned"
                    : "host-only cache hierarchy: nothing is provisioned");
    if (ConnectorReadiness.applies(cr)) {
      // The first-event clock of a typed LMCache backend starts once its connector is ready.
      final boolean up = Conditions.TRUE.equals(ready.status());
      if (fromServerMode) {
        st.firstAvailableAt = up ? now : null;
      } else if (up && st.firstAvailableAt == null) {
        st.firstAvailableAt = now;
      }
    } else if (st.firstAvailableAt == null || fromServerMode) {
      st.firstAvailableAt = now;
    }
    st.conditions = Conditions.set(st.conditions, ReadyRules.READY, ready, gen, now);
    ReadyRules.notDegraded(st, gen, now);
    out.requeue(
        ReadyRules.kvEventGate(
            cr, st, Conditions.reason(old.conditions, ReadyRules.READY), fromServerMode, now));
    if (Backends.eventsOnly(cr)) {
      ReadyRules.progressing(st, gen, now);
    } else {
      final List<V1Pod> pods = ownedEnginePods(cr);
      KernelCheckVerdict.apply(st, pods, gen, now);
      ReadyRules.progressing(st, gen, now);
      EngineCompatibilityVerdict.apply(cr, st, pods, gen, now);
    }
    st.observedGeneration = gen;
  }

  /** The engine pods {@code cr} injected; null when the list failed (their verdicts stay). */
  private List<V1Pod> ownedEnginePods(final CacheBackend cr) {
    try {
      return ownedPods.list(cr);
    } catch (ApiException e) {
      LOG.warn(
          "{}: owned engine pods not listed, kernel and compatibility verdicts kept: {} {}",
          cr.key(),
          e.getCode(),
          e.getMessage());
      return null;
    }
  }

  /** {@code host:port}, no scheme, no whitespace or control characters, port 1..65535. */
  static String endpointProblem(final String endpoint) {
    for (int i = 0; i < endpoint.length(); i++) {
      final char c = endpoint.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        return "endpoint must not contain whitespace or control characters";
      }
    }
    if (endpoint.contains("://")) {
      return "endpoint must be a bare host:port, without a scheme";
    }
    final int colon = endpoint.lastIndexOf(':');
    if (colon <= 0 || colon == endpoint.length() - 1) {
      return "endpoint must be host:port";
    }
    final String host = endpoint.substring(0, colon);
    if (host.contains("/")) {
      return "endpoint must be a bare host:port, without a path";
    }
    try {
      final int port = Integer.parseInt(endpoint.substring(colon + 1));
      if (port < 1 || port > 65535) {
        return "endpoint port must be within 1..65535";
      }
    } catch (NumberFormatException e) {
      return "endpoint port must be a number within 1..65535";
    }
    return null;
  }

  private void external(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final CacheBackend.RemoteStorage rs,
      final OffsetDateTime now) {
    final long gen = cr.generation();
    probe.forget(cr.key());
    final String endpoint = rs.endpoint == null ? "" : rs.endpoint.strip();
    final String status;
    final String reason;
    final String message;
    final String problem = endpoint.isEmpty() ? null : endpointProblem(endpoint);
    if (endpoint.isEmpty()) {
      status = Conditions.FALSE;
      reason = "ExternalEndpointMissing";
      message = "spec.remoteStorage.endpoint is required for ownership External (host:port)";
    } else if (problem != null) {
      status = Conditions.FALSE;
      reason = "ExternalEndpointInvalid";
      message = "spec.remoteStorage." + problem + " (got \"" + endpoint + "\")";
    } else {
      status = Conditions.TRUE;
      reason = "ExternalEndpointAccepted";
      message = "external Redis " + endpoint + " accepted (reachability is not probed)";
    }
    st.conditions =
        Conditions.set(
            st.conditions,
            ReadyRules.REMOTE_STORAGE_READY,
            status,
            Conditions.TRUE.equals(status) ? "RemoteStorageReady" : reason,
            message,
            gen,
            now);
    final ReadyRules.Verdict ready =
        ConnectorReadiness.applies(cr)
            ? ConnectorComposition.readyBase(cr, st)
            : new ReadyRules.Verdict(status, reason, message);
    st.conditions = Conditions.set(st.conditions, ReadyRules.READY, ready, gen, now);
    st.remoteStorage = new CacheBackend.RemoteStorageStatus();
    st.remoteStorage.provider = CacheBackend.Provider.REDIS;
    st.remoteStorage.endpoint = problem == null && !endpoint.isEmpty() ? endpoint : null;
    st.remoteStorage.ready =
        Conditions.TRUE.equals(status)
            ? CacheBackend.ConditionStatus.TRUE
            : CacheBackend.ConditionStatus.FALSE;
    Conditions.remove(
        st.conditions,
        ReadyRules.DEGRADED,
        ProbeGate.TYPE,
        KernelCheckVerdict.TYPE,
        ReadyRules.T2_DEGRADED,
        EngineCompatibilityVerdict.TYPE);
    ReadyRules.progressing(st, gen, now);
    st.observedGeneration = gen;
  }

  private void managed(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final OffsetDateTime now,
      final Outcome out)
      throws ApiException, InterruptedException {
    final long gen = cr.generation();
    final String ns = cr.getMetadata().getNamespace();
    final String name = cr.getMetadata().getName();
    V1Deployment deployment;
    V1Service service;
    boolean applied = true;
    try {
      deployment = workload.applyDeployment(cr, RedisWorkload.deployment(cr));
      service = workload.applyService(cr, RedisWorkload.service(cr));
    } catch (RedisWorkload.RenderException | OwnedWorkload.NotOwnedException e) {
      out.error = e;
      applied = false;
      deployment = null;
      service = null;
    } catch (ApiException e) {
      out.error = e;
      applied = false;
      deployment = workload.readDeployment(ns, name);
      service = workload.readService(ns, name);
    }
    if (deployment != null && !OwnedWorkload.controlledBy(deployment.getMetadata(), cr)) {
      deployment = null;
    }
    final ReadyRules.Verdict base;
    if (!applied && deployment == null) {
      base =
          new ReadyRules.Verdict(
              Conditions.FALSE,
              ReadyRules.ROLLOUT,
              "Redis workload not applied: " + message(out.error));
    } else {
      base = ReadyRules.deploymentReady(deployment);
    }
    final boolean ready = Conditions.TRUE.equals(base.status());
    st.conditions =
        Conditions.set(
            st.conditions,
            ReadyRules.REMOTE_STORAGE_READY,
            ready
                ? Conditions.TRUE
                : ReadyRules.ROLLOUT.equals(base.reason()) ? Conditions.UNKNOWN : Conditions.FALSE,
            ready
                ? "RemoteStorageReady"
                : ReadyRules.ROLLOUT.equals(base.reason())
                    ? "RemoteStoragePending"
                    : "RemoteStorageUnavailable",
            base.message(),
            gen,
            now);
    st.remoteStorage = new CacheBackend.RemoteStorageStatus();
    st.remoteStorage.provider = CacheBackend.Provider.REDIS;
    st.remoteStorage.endpoint =
        service != null && OwnedWorkload.controlledBy(service.getMetadata(), cr)
            ? RedisWorkload.endpoint(service)
            : null;
    st.remoteStorage.ready =
        ready
            ? CacheBackend.ConditionStatus.TRUE
            : ReadyRules.ROLLOUT.equals(base.reason())
                ? CacheBackend.ConditionStatus.UNKNOWN
                : CacheBackend.ConditionStatus.FALSE;
    final ReadyRules.Verdict composed =
        ConnectorReadiness.applies(cr) ? ConnectorComposition.readyBase(cr, st) : base;
    st.conditions = Conditions.set(st.conditions, ReadyRules.READY, composed, gen, now);
    if (ReadyRules.REPLICAS_UNAVAILABLE.equals(base.reason())) {
      st.conditions =
          Conditions.set(
              st.conditions,
              ReadyRules.DEGRADED,
              Conditions.TRUE,
              ReadyRules.REPLICAS_UNAVAILABLE,
              base.message(),
              gen,
              now);
    } else {
      ReadyRules.notDegraded(st, gen, now);
    }
    boolean fresh = false;
    if (Conditions.TRUE.equals(composed.status()) && st.firstAvailableAt == null) {
      st.firstAvailableAt = now;
      fresh = true;
    }
    final String oldReady =
        Conditions.reason(
            cr.getStatus() == null ? null : cr.getStatus().conditions, ReadyRules.READY);
    out.requeue(ReadyRules.kvEventGate(cr, st, oldReady, fresh, now));
    final ProbeGate.Verdict v = probe.evaluate(cr, st, now);
    out.requeue(v.requeue());
    out.consumesProbeSlot = v.consumesSlot();
    final List<V1Pod> pods = ownedEnginePods(cr);
    KernelCheckVerdict.apply(st, pods, gen, now);
    ReadyRules.progressing(st, gen, now);
    EngineCompatibilityVerdict.apply(cr, st, pods, gen, now);
    ReadyRules.t2Degraded(st, gen, now);
    if (applied) {
      st.observedGeneration = gen;
    }
  }
}
