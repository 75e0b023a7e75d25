package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.chain;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.legacy;
import static io.inferencecache.engine.IndexFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The change hooks of {@link IndexListener}: every path that changes the index reports. */
@Timeout(30)
class IndexListenerChangesTest {
  private final IndexFixtures.ManualClock clock = new IndexFixtures.ManualClock();
  private CacheIndex index;

  /** Records every change as one line. */
  static final class Recorder implements IndexListener {
    final List<String> changes = new CopyOnWriteArrayList<>();
    final AtomicBoolean wants = new AtomicBoolean(true);
    final AtomicInteger asked = new AtomicInteger();

    @Override
    public boolean wantsChanges() {
      asked.incrementAndGet();
      return wants.get();
    }

    @Override
    public void onPrefixStored(
        final String tenant,
        final String model,
        final String replica,
        final String scheme,
        final String adapter,
        final byte[] hash,
        final int tokenCount,
        final long timestampNanos) {
      changes.add(
          String.join(
              " ",
              "stored",
              tenant,
              model,
              replica,
              scheme,
              "[" + adapter + "]",
              new String(hash, StandardCharsets.UTF_8),
              Integer.toString(tokenCount),
              Long.toString(timestampNanos - T0)));
    }

    @Override
    public void onPrefixRemoved(
        final String tenant,
        final String model,
        final String replica,
        final String scheme,
        final String adapter,
        final byte[] hash,
        final String reason,
        final long timestampNanos) {
      changes.add(
          String.join(
              " ",
              "removed",
              tenant,
              model,
              replica,
              scheme,
              "[" + adapter + "]",
              new String(hash, StandardCharsets.UTF_8),
              reason,
              Long.toString(timestampNanos - T0)));
    }

    @Override
    public void onReplicaUpdated(
        final String tenant, final String model, final String replica, final long timestampNanos) {
      changes.add(
          String.join(" ", "replica", tenant, model, replica, Long.toString(timestampNanos - T0)));
    }

    @Override
    public void onAllCleared(
        final String tenant, final String model, final String replica, final long timestampNanos) {
      changes.add(
          String.join(" ", "cleared", tenant, model, replica, Long.toString(timestampNanos - T0)));
    }
  }

  private final Recorder rec = new Recorder();

  private CacheIndex open(final IndexConfig config) {
    index = CacheIndex.open(config.clock(clock).listener(rec));
    return index;
  }

  @AfterEach
  void close() {
    if (index != null) {
      assertThat(index.verifyCounts()).isEmpty();
      index.close();
    }
  }

  private static IndexEvent event(
      final IndexEvent.Type type,
      final String tenant,
      final String model,
      final String replica,
      final String hash,
      final String adapter) {
    return new IndexEvent(type, replica, model, tenant, h(hash), 0, adapter);
  }

  @Test
  void ingestReportsNewAndRefreshedEntriesAndStatsRows() {
    open(new IndexConfig().maxEntries(1000));
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    clock.advance(1, TimeUnit.SECONDS);
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 120)); // refresh
    index.ingest(chain("t", "m", "vllm", "r2", 16, "b0", "b1"));
    index.ingest(stats("t", "m", "r2", 0.5f, 0.1f));
    index.ingest(
        new IngestUpdate(
            "r3",
            "m",
            "t",
            "vllm",
            2_000_000, // 2 s after the epoch, taken literally
            "lora-a",
            List.of(IngestPrefix.legacy(h("p9"), 7, 0)),
            null));
    final long oneSecond = TimeUnit.SECONDS.toNanos(1);
    assertThat(rec.changes)
        .containsExactly(
            "stored t m r1 vllm [] p1 100 0",
            "stored t m r1 vllm [] p1 120 " + oneSecond,
            "stored t m r2 vllm [] b0 16 " + oneSecond,
            "stored t m r2 vllm [] b1 32 " + oneSecond,
            "replica t m r2 " + oneSecond,
            "stored t m r3 vllm [lora-a] p9 7 " + (2_000_000_000L - T0));
  }

  @Test
  void eventsReportEvictionsReplicaUpdatesAndClears() {
    open(new IndexConfig().maxEntries(1000));
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    index.ingest(legacy("t", "m", "sglang", "r1", "p1", 100));
    index.ingest(legacy("t", "m", "vllm", "r1", "p2", 200));
    index.ingest(legacy("t", "m", "vllm", "r2", "p2", 200));
    index.ingest(stats("t", "m", "r1", 0.5f, 0.1f));
    rec.changes.clear();

    clock.advance(1, TimeUnit.SECONDS);
    final long now = TimeUnit.SECONDS.toNanos(1);
    // across schemes; an unknown hash changes nothing
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p1", ""));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "nope", ""));
    // an adapter narrows the eviction: nothing under lora-x
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p2", "lora-x"));
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", "", ""));
    index.applyEvent(
        event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r2", "", "")); // no stats row
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", "", ""));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "other", "r1", "", "")); // unknown
    index.applyEvent(event(IndexEvent.Type.PREFIX_ADDED, "t", "m", "r1", "p3", ""));

    assertThat(rec.changes)
        .containsExactlyInAnyOrder(
            "removed t m r1 vllm [] p1 event " + now,
            "removed t m r1 sglang [] p1 event " + now,
            "replica t m r1 " + now,
            "cleared t m r1 " + now);
    assertThat(rec.changes.get(rec.changes.size() - 1)).isEqualTo("cleared t m r1 " + now);
    assertThat(index.totalEntries()).isEqualTo(1); // r2's p2
  }

  @Test
  void ttlSweepReportsEachExpiredEntry() {
    open(new IndexConfig().maxEntries(1000));
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    index.ingest(legacy("t", "m", "vllm", "r2", "p1", 100));
    clock.advance(20, TimeUnit.MINUTES);
    index.ingest(legacy("t", "m", "vllm", "r3", "p1", 100));
    rec.changes.clear();
    clock.advance(11, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(2);
    final long now = TimeUnit.MINUTES.toNanos(31);
    assertThat(rec.changes)
        .containsExactlyInAnyOrder(
            "removed t m r1 vllm [] p1 ttl " + now, "removed t m r2 vllm [] p1 ttl " + now);
  }

  @Test
  void globalCapReportsItsVictims() {
    open(new IndexConfig().maxEntries(2).evictionHeadroom(0));
    index.ingest(legacy("t", "m", "vllm", "r1", "old", 1));
    clock.advance(1, TimeUnit.SECONDS);
    index.ingest(legacy("t", "m", "vllm", "r1", "mid", 1));
    clock.advance(1, TimeUnit.SECONDS);
    rec.changes.clear();
    index.ingest(legacy("t", "m", "vllm", "r1", "new", 1));
    final long now = TimeUnit.SECONDS.toNanos(2);
    assertThat(rec.changes)
        .containsExactly(
            "stored t m r1 vllm [] new 1 " + now, "removed t m r1 vllm [] old cap " + now);
  }

  @Test
  void tenantQuotaReportsEveryHolderOfEachDroppedKey() {
    final TenantPolicies quotaOfOne =
        new TenantPolicies() {
          @Override
          public long ttlNanos(final int tenantId) {
            return 0;
          }

          @Override
          public boolean lfu(final int tenantId) {
            return false;
          }

          @Override
          public long maxIndexEntries(final int tenantId) {
            return 1;
          }
        };
    open(new IndexConfig().maxEntries(1000).evictionHeadroom(0).policies(quotaOfOne));
    index.ingest(legacy("t", "m", "vllm", "r1", "k1", 1));
    index.ingest(legacy("t", "m", "vllm", "r2", "k1", 1));
    clock.advance(1, TimeUnit.SECONDS);
    rec.changes.clear();
    index.ingest(legacy("t", "m", "vllm", "r1", "k2", 1));
    final long now = TimeUnit.SECONDS.toNanos(1);
    assertThat(rec.changes)
        .containsExactly(
            "stored t m r1 vllm [] k2 1 " + now,
            "removed t m r1 vllm [] k1 quota " + now,
            "removed t m r2 vllm [] k1 quota " + now);
  }

  @Test
  void nothingIsReportedWhileTheListenerWantsNoChanges() {
    open(new IndexConfig().maxEntries(1000));
    rec.wants.set(false);
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    index.ingest(stats("t", "m", "r1", 0.5f, 0.1f));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p1", ""));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", "", ""));
    assertThat(rec.changes).isEmpty();
    assertThat(rec.asked.get()).isPositive();
    rec.wants.set(true);
    index.ingest(legacy("t", "m", "vllm", "r1", "p2", 100));
    assertThat(rec.changes).containsExactly("stored t m r1 vllm [] p2 100 0");
  }

  @Test
  void composeFansOutToEveryListenerAndIsolatesFailures() {
    final Recorder quiet = new Recorder();
    quiet.wants.set(false);
    final List<String> gauges = new CopyOnWriteArrayList<>();
    final IndexListener metrics =
        new IndexListener() {
          @Override
          public void onIndexEntries(final String model, final long distinctKeys) {
            gauges.add(model + "=" + distinctKeys);
          }
        };
    final IndexListener broken =
        new IndexListener() {
          @Override
          public boolean wantsChanges() {
            return true;
          }

          @Override
          public void onIndexEntries(final String model, final long distinctKeys) {
            throw new IllegalStateException("boom");
          }

          @Override
          public void onPrefixStored(
              final String tenant,
              final String model,
              final String replica,
              final String scheme,
              final String adapter,
              final byte[] hash,
              final int tokenCount,
              final long timestampNanos) {
            throw new IllegalStateException("boom");
          }
        };
    assertThat(IndexListeners.compose()).isSameAs(IndexListener.NOOP);
    assertThat(IndexListeners.compose(metrics)).isSameAs(metrics);
    index =
        CacheIndex.open(
            new IndexConfig()
                .maxEntries(1000)
                .clock(clock)
                .listener(IndexListeners.compose(broken, metrics, quiet, rec)));
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    assertThat(gauges).containsExactly("m=1");
    assertThat(rec.changes).containsExactly("stored t m r1 vllm [] p1 100 0");
    assertThat(quiet.changes).isEmpty();
    assertThat(index.totalEntries()).isEqualTo(1);
  }
}
