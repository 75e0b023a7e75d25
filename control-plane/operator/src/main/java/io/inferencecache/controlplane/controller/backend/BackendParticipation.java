package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each snapshot's share per CacheBackend ({@code status.indexParticipation}): a replica row belongs
 * to the pod {@code (namespace = tenant, name = replicaId)}, and the pod to the backend its {@code
 * injected-by} stamp names, else to the first backend of its namespace (by name) whose selector its
 * labels satisfy. Per backend: prefixes summed, latest event, tier-2 hit rate (only once tier 2 was
 * queried) and its two metrics. A backend never observed with nothing to show is left alone; an
 * unchanged share is not written. Runs on the poller's thread, leader only.
 */
public final class BackendParticipation implements Consumer<ServerSnapshot> {
  private static final Logger LOG = LoggerFactory.getLogger(BackendParticipation.class);

  private final Lister<CacheBackend> backends;
  private final Lister<V1Pod> pods;
  private final StatusWriter status;
  private final ControllerMetrics metrics;
  private final Set<String> withSeries = new HashSet<>();

  BackendParticipation(
      final Lister<CacheBackend> backends,
      final Lister<V1Pod> pods,
      final ApiClient client,
      final ControllerMetrics metrics) {
    this.backends = backends;
    this.pods = pods;
    this.status = new StatusWriter(client);
    this.metrics = metrics;
  }

  private static final class Share {
    long prefixes;
    Instant lastEvent;
    long t2Hits;
    long t2Queries;
  }

  @Override
  public void accept(final ServerSnapshot snapshot) {
    final List<CacheBackend> all = new ArrayList<>(backends.list());
    if (all.isEmpty()) {
      prune(Set.of());
      return;
    }
    all.sort(Comparator.comparing((CacheBackend b) -> b.getMetadata().getName()));
    final Map<String, Share> shares = new HashMap<>();
    for (final ServerSnapshot.Replica r : snapshot.replicas()) {
      if (r.tenant().isEmpty() || r.replicaId().isEmpty()) {
        continue;
      }
      final V1Pod pod = pods.namespace(r.tenant()).get(r.replicaId());
      if (pod == null) {
        continue;
      }
      final CacheBackend owner = owner(pod, all);
      if (owner == null) {
        continue;
      }
      final Share s = shares.computeIfAbsent(owner.key(), k -> new Share());
      s.prefixes += r.prefixCount();
      if (r.lastEventAt() != null
          && (s.lastEvent == null || r.lastEventAt().isAfter(s.lastEvent))) {
        s.lastEvent = r.lastEventAt();
      }
      s.t2Hits += r.t2HitTokens();
      s.t2Queries += r.t2QueryTokens();
    }
    final Set<String> exercised = new HashSet<>();
    for (final CacheBackend cr : all) {
      final String key = cr.key();
      final Share s = shares.getOrDefault(key, new Share());
      final CacheBackend.IndexParticipation want = new CacheBackend.IndexParticipation();
      want.prefixCount = s.prefixes;
      want.lastEventAt =
          s.lastEvent == null
              ? null
              : OffsetDateTime.ofInstant(
                  s.lastEvent.truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC);
      if (s.t2Queries > 0) {
        final double rate = Math.min(1.0, Math.max(0.0, (double) s.t2Hits / s.t2Queries));
        want.t2HitRate = CrText.rate(rate);
        metrics.t2HitRate(key, rate);
        metrics.t2QueryTokens(key, s.t2Queries);
        exercised.add(key);
      }
      final CacheBackend.IndexParticipation have =
          cr.getStatus() == null ? null : cr.getStatus().indexParticipation;
      if (have == null
          && Backends.selector(cr).isEmpty()
          && s.prefixes == 0
          && s.lastEvent == null
          && s.t2Queries == 0) {
        continue;
      }
      if (have != null && JSON.serialize(have).equals(JSON.serialize(want))) {
        continue;
      }
      write(cr, want);
    }
    prune(exercised);
  }

  private void write(final CacheBackend cached, final CacheBackend.IndexParticipation want) {
    final CacheBackend cr = CrText.copy(cached, CacheBackend.class);
    if (cr.getStatus() == null) {
      cr.setStatus(new CacheBackend.Status());
    }
    cr.getStatus().indexParticipation = want;
    try {
      status.replaceStatus(CacheBackend.CRD, cr);
    } catch (ApiException e) {
      LOG.warn(
          "cachebackend {} index participation not written (next snapshot retries): {}",
          cr.key(),
          e.getCode());
    }
  }

  private void prune(final Set<String> exercised) {
    for (final String key : withSeries) {
      if (!exercised.contains(key)) {
        metrics.pruneBackend(key);
      }
    }
    withSeries.clear();
    withSeries.addAll(exercised);
  }

  /** The backend a pod's replica counts for, or {@code null}. */
  static CacheBackend owner(final V1Pod pod, final List<CacheBackend> sortedByName) {
    final String ns = pod.getMetadata().getNamespace();
    final Map<String, String> a = pod.getMetadata().getAnnotations();
    final String stamp = a == null ? null : a.get(Backends.INJECTED_BY);
    if (stamp != null) {
      final String[] ref = EnginePodEventsReconciler.injectedBy(stamp);
      if (ref != null && ref[0].equals(ns)) {
        for (final CacheBackend b : sortedByName) {
          if (ns.equals(b.getMetadata().getNamespace())
              && ref[1].equals(b.getMetadata().getName())) {
            return b;
          }
        }
        return null;
      }
    }
    final Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    for (final CacheBackend b : sortedByName) {
      final Map<String, String> sel = Backends.selector(b);
      if (ns.equals(b.getMetadata().getNamespace())
          && !sel.isEmpty()
          && labels.entrySet().containsAll(sel.entrySet())) {
        return b;
      }
    }
    return null;
  }
}
