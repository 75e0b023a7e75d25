package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * The pure parts of a CacheBackend's verdict: Ready from the managed Deployment, the first-KV-event
 * gate, Degraded, Progressing and T2Degraded. Each works on the status being built.
 */
final class ReadyRules {
  static final String READY = "Ready";
  static final String DEGRADED = "Degraded";
  static final String PROGRESSING = "Progressing";
  static final String T2_DEGRADED = "T2Degraded";
  static final String REMOTE_STORAGE_READY = "RemoteStorageReady";
  static final String AWAITING = "AwaitingFirstKVEvent";
  static final String OBSERVED = "KVEventsObserved";
  static final String NO_EVENTS = "NoKVEventsObserved";
  static final String NOT_DEGRADED = "NotDegraded";
  static final String REPLICAS_UNAVAILABLE = "ReplicasUnavailable";
  static final String ROLLOUT = "RolloutInProgress";

  private ReadyRules() {}

  /** A condition verdict. */
  record Verdict(String status, String reason, String message) {}

  /** Ready of a Managed backend from its live Deployment ({@code null}: not created yet). */
  static Verdict deploymentReady(final V1Deployment d) {
    if (d == null || d.getSpec() == null) {
      return new Verdict(Conditions.FALSE, ROLLOUT, "Redis Deployment not created yet");
    }
    final int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    if (want == 0) {
      return new Verdict(
          Conditions.FALSE, "ScaledToZero", "Redis Deployment is scaled to 0 replicas");
    }
    final long generation =
        d.getMetadata().getGeneration() == null ? 0 : d.getMetadata().getGeneration();
    final long observed =
        d.getStatus() == null || d.getStatus().getObservedGeneration() == null
            ? 0
            : d.getStatus().getObservedGeneration();
    final int updated = count(d.getStatus() == null ? null : d.getStatus().getUpdatedReplicas());
    final int available =
        count(d.getStatus() == null ? null : d.getStatus().getAvailableReplicas());
    if (observed >= generation && updated >= want && available >= want) {
      return new Verdict(
          Conditions.TRUE, "BackendReady", available + "/" + want + " replicas available");
    }
    if (observed < generation || updated < want) {
      return new Verdict(
          Conditions.FALSE,
          ROLLOUT,
          "Redis Deployment rolling out: " + updated + "/" + want + " replicas updated");
    }
    return new Verdict(
        Conditions.FALSE,
        REPLICAS_UNAVAILABLE,
        "Redis Deployment has "
            + available
            + "/"
            + want
            + " replicas available; check its pods (kubectl describe deployment "
            + d.getMetadata().getName()
            + ")");
  }

  private static int count(final Integer n) {
    return n == null ? 0 : n;
  }

  /**
   * The first-KV-event gate over a base Ready of True. Returns the requeue while waiting.
   *
   * @param freshWindow the anchor was just (re)set: a sticky NoKVEventsObserved does not hold
   */
  static Duration kvEventGate(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final String oldReadyReason,
      final boolean freshWindow,
      final OffsetDateTime now) {
    if ("false".equals(Backends.annotation(cr, Backends.REQUIRE_KV_EVENTS))
        || !Conditions.is(st.conditions, READY, Conditions.TRUE)) {
      return null;
    }
    final long gen = cr.generation();
    final OffsetDateTime lastEvent =
        st.indexParticipation == null ? null : st.indexParticipation.lastEventAt;
    if (st.firstKVEventObservedAt != null || lastEvent != null) {
      if (st.firstKVEventObservedAt == null) {
        st.firstKVEventObservedAt = lastEvent;
      }
      st.conditions =
          Conditions.set(
              st.conditions,
              READY,
              Conditions.TRUE,
              OBSERVED,
              "engine KV events reached the index (first at "
                  + CrText.time(st.firstKVEventObservedAt)
                  + ")",
              gen,
              now);
      notDegraded(st, gen, now);
      return null;
    }
    final Duration timeout = Backends.firstEventTimeout(cr);
    if (NO_EVENTS.equals(oldReadyReason) && !freshWindow) {
      noEvents(st, timeout, gen, now);
      return null;
    }
    final OffsetDateTime anchor = st.firstAvailableAt == null ? now : st.firstAvailableAt;
    final Duration elapsed = Duration.between(anchor, now);
    if (elapsed.compareTo(timeout) < 0) {
      st.conditions =
          Conditions.set(
              st.conditions,
              READY,
              Conditions.FALSE,
              AWAITING,
              "waiting up to "
                  + timeout.toSeconds()
                  + "s (observation.firstEventTimeout) for the first KV event from the selected"
                  + " engine pods",
              gen,
              now);
      notDegraded(st, gen, now);
      return timeout.minus(elapsed);
    }
    noEvents(st, timeout, gen, now);
    return null;
  }

  private static void noEvents(
      final CacheBackend.Status st,
      final Duration timeout,
      final long gen,
      final OffsetDateTime now) {
    final String m =
        "no KV event from the selected engine pods within "
            + timeout.toSeconds()
            + "s; check that the engines publish KV events and that a kvevent-subscriber reaches"
            + " the server";
    st.conditions = Conditions.set(st.conditions, READY, Conditions.FALSE, NO_EVENTS, m, gen, now);
    st.conditions =
        Conditions.set(st.conditions, DEGRADED, Conditions.TRUE, NO_EVENTS, m, gen, now);
  }

  static void notDegraded(final CacheBackend.Status st, final long gen, final OffsetDateTime now) {
    st.conditions =
        Conditions.set(
            st.conditions,
            DEGRADED,
            Conditions.FALSE,
            NOT_DEGRADED,
            "backend is not degraded",
            gen,
            now);
  }

  /** Progressing from Ready (True while rolling out or awaiting the first KV event). */
  static void progressing(final CacheBackend.Status st, final long gen, final OffsetDateTime now) {
    final String reason = Conditions.reason(st.conditions, READY);
    if (reason == null) {
      Conditions.remove(st.conditions, PROGRESSING);
      return;
    }
    final String status;
    final String r;
    if (ROLLOUT.equals(reason) || AWAITING.equals(reason)) {
      status = Conditions.TRUE;
      r = reason;
    } else if (Conditions.is(st.conditions, READY, Conditions.TRUE)) {
      status = Conditions.FALSE;
      r = "Synced";
    } else if (REPLICAS_UNAVAILABLE.equals(reason)) {
      status = Conditions.FALSE;
      r = "Degraded";
    } else {
      status = Conditions.FALSE;
      r = reason;
    }
    st.conditions =
        Conditions.set(
            st.conditions,
            PROGRESSING,
            status,
            r,
            Conditions.get(st.conditions, READY).getMessage(),
            gen,
            now);
  }

  /** T2Degraded from {@code indexParticipation.t2HitRate} (removed when there is none). */
  static void t2Degraded(final CacheBackend.Status st, final long gen, final OffsetDateTime now) {
    final String rate = st.indexParticipation == null ? null : st.indexParticipation.t2HitRate;
    if (rate == null) {
      Conditions.remove(st.conditions, T2_DEGRADED);
      return;
    }
    st.conditions =
        "0".equals(rate)
            ? Conditions.set(
                st.conditions,
                T2_DEGRADED,
                Conditions.TRUE,
                "T2ZeroHitRate",
                "tier-2 storage is queried but never hits (t2HitRate 0)",
                gen,
                now)
            : Conditions.set(
                st.conditions,
                T2_DEGRADED,
                Conditions.FALSE,
                "T2Serving",
                "tier-2 hit rate " + rate,
                gen,
                now);
  }
}
