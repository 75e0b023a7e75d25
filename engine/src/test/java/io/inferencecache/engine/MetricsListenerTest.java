package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The numbers the index reports (docs/behaviour.md#metrics; checklist 1, 3, 4, 88). */
class MetricsListenerTest extends IndexTestSupport {

  @Test
  void reportsDistinctKeysPerModel() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 16).legacy("p2", 16));
    assertThat(listener.gauges.get("m")).isEqualTo(2);
    ingest(update("t", "m", "vllm", "r2").legacy("p1", 16)); // another holder: no new key
    ingest(update("u", "m", "sglang", "r1").legacy("p1", 16));
    assertThat(listener.gauges.get("m")).isEqualTo(3);
    assertThat(index.modelKeys("m")).isEqualTo(3);
  }

  @Test
  @Timeout(60)
  void concurrentIngestsReportTheFinalCountLast() throws Exception {
    final int n = 50;
    final CountDownLatch go = new CountDownLatch(1);
    final List<Thread> threads = new ArrayList<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int i = 0; i < n; i++) {
      final int k = i;
      final Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                  index.ingest(update("t", "m", "vllm", "r" + (k % 5)).legacy("p" + k, 16).build());
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    assertThat(index.totalEntries()).isEqualTo(n);
    assertThat(listener.gaugePushes("m"))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, n).boxed().toList());
  }

  @Test
  void reportsZeroOnceWhenAModelDrains() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 16).legacy("p2", 16));
    ingest(update("t", "other", "vllm", "r1").legacy("p1", 16));
    clock.advance(20, TimeUnit.MINUTES);
    ingest(update("t", "other", "vllm", "r1").legacy("p1", 16));
    clock.advance(10, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(listener.gauges.get("m")).isZero();
    assertThat(listener.gaugePushes("m")).containsExactly(2L, 0L);
    index.sweepExpired();
    assertThat(listener.gaugePushes("m")).containsExactly(2L, 0L);
    assertThat(listener.gauges.get("other")).isEqualTo(1);
  }

  @Test
  void eventsUpdateTheGauge() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 16).legacy("p2", 16));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p1", ""));
    assertThat(listener.gauges.get("m")).isEqualTo(1);
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    assertThat(listener.gauges.get("m")).isZero();
  }

  @Test
  void reportsAfterTheChangeIsVisible() {
    final List<String> mismatches = new CopyOnWriteArrayList<>();
    final AtomicReference<CacheIndex> self = new AtomicReference<>();
    reopen(
        baseConfig()
            .listener(
                new IndexListener() {
                  @Override
                  public void onIndexEntries(final String model, final long keys) {
                    if (self.get().modelKeys(model) != keys) {
                      mismatches.add(model + " " + keys);
                    }
                  }
                }));
    self.set(index);
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 16).legacy("p2", 16));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p1", ""));
    clock.advance(31, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(mismatches).isEmpty();
  }

  @Test
  void labelsEvictionsByAlgorithmAndReason() {
    reopen(baseConfig().maxEntries(2).evictionHeadroom(0));
    policies.lfu.add("f");
    ingest(update("l", "m", "vllm", "r1").legacy("a", 16));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("f", "m", "vllm", "r1").legacy("b", 16));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("l", "m", "vllm", "r1").legacy("c", 16)); // evicts l/a (oldest, count 0)
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
    assertThat(listener.evictions("lfu", "cap")).isZero();
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("l", "m", "vllm", "r1").legacy("d", 16)); // evicts f/b
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);

    reopen(baseConfig());
    ingest(update("l", "m", "vllm", "r1").legacy("x", 16).legacy("y", 16));
    ingest(update("f", "m", "vllm", "r1").legacy("z", 16));
    clock.advance(30, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(3);
    assertThat(listener.evictions("lru", "ttl")).isEqualTo(2);
    assertThat(listener.evictions("lfu", "ttl")).isEqualTo(1);
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
    assertThat(listener.calls)
        .filteredOn(c -> c.kind().equals("evictions"))
        .allMatch(c -> c.b().equals("cap") || c.b().equals("ttl"));
  }

  @Test
  void reportsQuotaEvictionsPerTenant() {
    policies.quota.put("t", 1L);
    ingest(update("t", "m", "vllm", "r1").legacy("a", 16));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("b", 16).legacy("c", 16));
    assertThat(listener.tenantEvictions("t", "over_entries")).isEqualTo(2);
    assertThat(listener.allEvictions()).isZero();
  }
}
