package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.inferencecache.controlplane.k8s.model.CacheIndexResourceList;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot mirror (leader only), one {@link #refresh()} per interval: make sure the CacheIndex
 * {@code cluster-default} exists (before scraping, so it exists while the server is down), GET the
 * server's {@code /snapshot} with the controller-audience token, then write the CacheIndex status
 * and each CacheTenant status, each only when it changed. A failed scrape changes nothing; a failed
 * CacheIndex write ends the tick before the tenants. Reads come from the informer caches.
 */
public final class CacheIndexPoller {
  private static final Logger LOG = LoggerFactory.getLogger(CacheIndexPoller.class);

  private final Lister<CacheIndexResource> indices;
  private final GenericKubernetesApi<CacheIndexResource, CacheIndexResourceList> indexApi;
  private final Lister<CacheTenant> tenants;
  private final StatusWriter status;
  private final ServerBridge bridge;
  private final String snapshotUrl;
  private final Path tokenFile;
  private final BooleanSupplier leader;
  private final Clock clock;
  private volatile Consumer<ServerSnapshot> snapshotListener = s -> {};
  private volatile Consumer<Boolean> pollListener = ok -> {};

  public CacheIndexPoller(
      final Lister<CacheIndexResource> indices,
      final GenericKubernetesApi<CacheIndexResource, CacheIndexResourceList> indexApi,
      final Lister<CacheTenant> tenants,
      final StatusWriter status,
      final ServerBridge bridge,
      final String snapshotUrl,
      final Path tokenFile,
      final BooleanSupplier leader,
      final Clock clock) {
    this.indices = indices;
    this.indexApi = indexApi;
    this.tenants = tenants;
    this.status = status;
    this.bridge = bridge;
    this.snapshotUrl = snapshotUrl;
    this.tokenFile = tokenFile;
    this.leader = leader;
    this.clock = clock;
  }

  /**
   * Hands every decoded snapshot to {@code listener} (the per-CacheBackend projection) before the
   * CacheIndex projection; its failures are logged and do not stop the tick.
   */
  public void onSnapshot(final Consumer<ServerSnapshot> listener) {
    this.snapshotListener = listener;
  }

  /** Tells {@code listener} whether each poll of {@code /snapshot} read and decoded one. */
  public void onPoll(final Consumer<Boolean> listener) {
    this.pollListener = listener;
  }

  /** One refresh; every failure is logged, never thrown. */
  public void refresh() {
    if (!leader.getAsBoolean()) {
      return;
    }
    try {
      refreshOnce();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("cacheindex refresh failed", e);
    }
  }

  private void refreshOnce() throws InterruptedException {
    CacheIndexResource index = indices.get(CacheIndexStatus.NAME);
    if (index == null) {
      index = create();
      if (index == null) {
        return;
      }
    }
    final ServerSnapshot snapshot;
    try {
      snapshot = ServerSnapshot.decode(bridge.getSnapshot(snapshotUrl, tokenFile));
    } catch (IOException e) {
      pollListener.accept(false);
      LOG.warn("snapshot from {} not read (status kept): {}", snapshotUrl, e.toString());
      return;
    }
    pollListener.accept(true);
    try {
      snapshotListener.accept(snapshot);
    } catch (RuntimeException e) {
      LOG.error("cachebackend index participation failed", e);
    }
    final CacheIndexStatus wanted =
        CacheIndexStatus.project(snapshot, snapshotUrl, clock.instant());
    final CacheIndexStatus stored = CacheIndexStatus.from(index.getStatus());
    if (!wanted.sameIgnoringTimes(stored)) {
      final CacheIndexResource update = CrText.copy(index, CacheIndexResource.class);
      update.setStatus(wanted.toStatus());
      try {
        status.replaceStatus(CacheIndexResource.CRD, update);
      } catch (ApiException e) {
        if (e.getCode() == 409) {
          LOG.info(
              "cacheindex {} changed meanwhile; the next tick rewrites it", CacheIndexStatus.NAME);
          return;
        }
        LOG.warn(
            "cacheindex {} status not written (tenants not projected this tick): {}",
            CacheIndexStatus.NAME,
            StatusWriter.message(e));
        return;
      }
    }
    projectTenants(snapshot);
  }

  private void projectTenants(final ServerSnapshot snapshot) {
    final List<CacheTenant> crs = tenants.list();
    final Map<String, TenantStatus> wanted = TenantStatus.project(crs, snapshot, clock.instant());
    for (final CacheTenant cr : crs) {
      final TenantStatus want = wanted.get(cr.key());
      final TenantStatus stored = TenantStatus.from(cr.getStatus());
      if (want == null || want.sameIgnoringTimes(stored)) {
        continue;
      }
      try {
        status.mergeStatus(
            CacheTenant.CRD,
            cr.getMetadata().getNamespace(),
            cr.getMetadata().getName(),
            want.toStatus());
      } catch (ApiException e) {
        LOG.warn("cachetenant {} status not written: {}", cr.key(), StatusWriter.message(e));
      }
    }
  }

  private CacheIndexResource create() {
    final CacheIndexResource fresh = new CacheIndexResource();
    fresh.setMetadata(new V1ObjectMeta().name(CacheIndexStatus.NAME));
    fresh.setSpec(new CacheIndexResource.Spec());
    final KubernetesApiResponse<CacheIndexResource> r = indexApi.create(fresh);
    if (r.isSuccess()) {
      LOG.info("cacheindex {} created", CacheIndexStatus.NAME);
      return r.getObject();
    }
    if (r.getHttpStatusCode() == 409) {
      final KubernetesApiResponse<CacheIndexResource> got = indexApi.get(CacheIndexStatus.NAME);
      if (got.isSuccess()) {
        return got.getObject();
      }
    }
    LOG.warn(
        "cacheindex {} not created: {} {}",
        CacheIndexStatus.NAME,
        r.getHttpStatusCode(),
        message(r));
    return null;
  }

  private static String message(final KubernetesApiResponse<?> r) {
    return r.getStatus() == null ? "" : r.getStatus().getMessage();
  }
}
