package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Condition;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The functional probe gate of a Managed backend: once the upstream gates leave Ready True, POST
 * the server's {@code /probe} at most once per interval per backend and turn its stage outcomes
 * into {@code FunctionalProbeOK} (a failed stage also downgrades Ready). A failed call is
 * Unknown/{@code ProbeError} (a kept False verdict stays) and retries after the interval without
 * consuming the slot; a slot is consumed only by {@link #commit} after the status write.
 */
final class ProbeGate {
  static final String TYPE = "FunctionalProbeOK";
  static final int MESSAGE_MAX = 512;
  private static final String[] STAGES = {"ingest", "routing", "t2"};
  private static final String[] FAILED_REASONS = {
    "ProbeIngestFailed", "ProbeRoutingFailed", "ProbeT2Failed"
  };

  private final ProbeClient client;
  private final Duration interval;
  private final ControllerMetrics metrics;
  private final Map<String, Instant> nextSlot = new ConcurrentHashMap<>();

  /**
   * @param client {@code null} disables the gate (the condition is removed)
   */
  ProbeGate(final ProbeClient client, final Duration interval, final ControllerMetrics metrics) {
    this.client = client;
    this.interval = interval;
    this.metrics = metrics;
  }

  /** What one evaluation asks of the reconciler. */
  record Verdict(Duration requeue, boolean consumesSlot) {
    static final Verdict NONE = new Verdict(null, false);
  }

  Verdict evaluate(final CacheBackend cr, final CacheBackend.Status st, final OffsetDateTime now)
      throws InterruptedException {
    final long gen = cr.generation();
    if (client == null) {
      Conditions.remove(st.conditions, TYPE);
      return Verdict.NONE;
    }
    if (!Conditions.is(st.conditions, ReadyRules.READY, Conditions.TRUE)) {
      return Verdict.NONE;
    }
    if ("true".equals(Backends.annotation(cr, Backends.SKIP_PROBE))) {
      st.conditions =
          Conditions.set(
              st.conditions,
              TYPE,
              Conditions.TRUE,
              "ProbeBypassed",
              "functional probe bypassed by annotation " + Backends.SKIP_PROBE,
              gen,
              now);
      return Verdict.NONE;
    }
    final String key = cr.key();
    final V1Condition existing = Conditions.get(st.conditions, TYPE);
    final Instant slot = nextSlot.get(key);
    if (slot != null && now.toInstant().isBefore(slot)) {
      keepFalse(st, existing, gen, now);
      return new Verdict(Duration.between(now.toInstant(), slot), false);
    }
    final ProbeClient.Outcome o;
    try {
      o = client.run(key, Backends.hashScheme(cr), Backends.rawType(cr));
    } catch (IOException e) {
      if (!keepFalse(st, existing, gen, now)) {
        final String m = "functional probe call failed: " + e.getMessage();
        st.conditions =
            Conditions.set(
                st.conditions,
                TYPE,
                Conditions.UNKNOWN,
                "ProbeError",
                m.length() > MESSAGE_MAX ? m.substring(0, MESSAGE_MAX) : m,
                gen,
                now);
      }
      return new Verdict(interval, false);
    }
    final String[] results = {o.ingest(), o.routing(), o.t2()};
    final String[] errors = {o.ingestError(), o.routingError(), o.t2Error()};
    boolean recognised = true;
    for (int i = 0; i < STAGES.length; i++) {
      final boolean known =
          "ok".equals(results[i]) || "failed".equals(results[i]) || "skipped".equals(results[i]);
      recognised &= known;
      metrics.probeResult(key, STAGES[i], known ? results[i] : "failed");
    }
    if (!recognised) {
      final String m =
          "probe returned an unrecognized stage outcome (ingest="
              + o.ingest()
              + " routing="
              + o.routing()
              + " t2="
              + o.t2()
              + ")";
      fail(st, "ProbeError", m, gen, now);
      return new Verdict(interval, true);
    }
    for (int i = 0; i < STAGES.length; i++) {
      if ("failed".equals(results[i])) {
        final String m =
            errors[i] == null || errors[i].isEmpty()
                ? "probe stage " + STAGES[i] + " failed without a message"
                : errors[i];
        fail(st, FAILED_REASONS[i], m, gen, now);
        return new Verdict(interval, true);
      }
    }
    st.conditions =
        Conditions.set(
            st.conditions,
            TYPE,
            Conditions.TRUE,
            "ProbeOK",
            "functional probe passed (ingest="
                + o.ingest()
                + " routing="
                + o.routing()
                + " t2="
                + o.t2()
                + ")",
            gen,
            now);
    return new Verdict(interval, true);
  }

  private static void fail(
      final CacheBackend.Status st,
      final String reason,
      final String message,
      final long gen,
      final OffsetDateTime now) {
    st.conditions =
        Conditions.set(st.conditions, TYPE, Conditions.FALSE, reason, message, gen, now);
    downgradeReady(st, reason, message, gen, now);
  }

  /** A False verdict already in place keeps downgrading Ready; returns whether there was one. */
  private static boolean keepFalse(
      final CacheBackend.Status st,
      final V1Condition existing,
      final long gen,
      final OffsetDateTime now) {
    if (existing == null || !Conditions.FALSE.equals(existing.getStatus())) {
      return false;
    }
    downgradeReady(st, existing.getReason(), existing.getMessage(), gen, now);
    return true;
  }

  private static void downgradeReady(
      final CacheBackend.Status st,
      final String reason,
      final String message,
      final long gen,
      final OffsetDateTime now) {
    st.conditions =
        Conditions.set(
            st.conditions,
            ReadyRules.READY,
            Conditions.FALSE,
            reason,
            "functional probe failed: " + message,
            gen,
            now);
  }

  /** Consumes {@code key}'s slot (called once the status carrying the verdict is written). */
  void commit(final String key, final Instant now) {
    nextSlot.put(key, now.plus(interval));
  }

  /** Drops {@code key}'s slot (deleted backend, or a path without a probe). */
  void forget(final String key) {
    nextSlot.remove(key);
  }
}
