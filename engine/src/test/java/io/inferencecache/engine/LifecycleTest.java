package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Start, readiness, close and configuration defaults (docs/behaviour.md#defaults; checklist 66,
 * 67).
 */
class LifecycleTest extends IndexTestSupport {

  @Test
  void readyReflectsStartAndClose() {
    assertThat(index.isReady()).isFalse();
    index.start();
    assertThat(index.isReady()).isTrue();
    index.start(); // idempotent
    assertThat(index.isReady()).isTrue();
    index.close();
    assertThat(index.isReady()).isFalse();
  }

  @Test
  @Timeout(30)
  void aStartedIndexSweepsOnItsOwn() throws InterruptedException {
    reopen(baseConfig().sweepIntervalNanos(TimeUnit.MILLISECONDS.toNanos(20)));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16));
    clock.advance(31, TimeUnit.MINUTES);
    index.start();
    // The sweep thread removes the entry, then reports the eviction: wait for both.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> index.totalEntries() == 0 && listener.evictions("lru", "ttl") > 0);
    assertThat(index.totalKeys()).isZero();
    assertThat(listener.evictions("lru", "ttl")).isEqualTo(1);
  }

  @Test
  void nonPositiveDurationsFallBackToTheDefaults() {
    final IndexConfig cfg = baseConfig().defaultTtlNanos(0).sweepIntervalNanos(-5).conclude();
    assertThat(cfg.defaultTtlNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(30));
    assertThat(cfg.sweepIntervalNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(1));
    reopen(baseConfig().defaultTtlNanos(-1).sweepIntervalNanos(0));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16));
    clock.advance(29, TimeUnit.MINUTES);
    assertThat(route(exactReq("t", "m", "vllm", "p", 16)).size()).isEqualTo(1);
    assertThat(index.sweepExpired()).isZero();
    clock.advance(1, TimeUnit.MINUTES);
    assertThat(route(exactReq("t", "m", "vllm", "p", 16)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void defaultsAreTheUpstreamConstants() {
    final IndexConfig cfg = new IndexConfig();
    assertThat(cfg.maxEntries()).isEqualTo(1_000_000L);
    assertThat(cfg.defaultTtlNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(30));
    assertThat(cfg.sweepIntervalNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(1));
    assertThat(cfg.tenantHotMaxAgeNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(5));
    assertThat(cfg.tenantHotMinHitRate()).isEqualTo(0.1f);
    assertThat(cfg.pressureWeight()).isEqualTo(1.0f);
    assertThat(cfg.sloTightTtftMs()).isEqualTo(200);
    assertThat(cfg.sloTightBias()).isEqualTo(1.0f);
  }

  @Test
  void invalidSettingsAreRejectedByName() {
    assertThatThrownBy(() -> CacheIndex.open(baseConfig().maxEntries(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxEntries");
    assertThatThrownBy(() -> CacheIndex.open(baseConfig().evictionHeadroom(0.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("evictionHeadroom");
    assertThatThrownBy(() -> CacheIndex.open(baseConfig().averageHashBytes(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("averageHashBytes");
    assertThatThrownBy(() -> CacheIndex.open(baseConfig().reservedCapacity(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reservedCapacity");
    assertThatThrownBy(() -> CacheIndex.open(baseConfig().clock(null)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aClosedIndexRefusesWritesAndRestart() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16));
    index.close();
    index.close(); // idempotent
    assertThatThrownBy(() -> ingest(update("t", "m", "vllm", "r1").legacy("q", 16)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () ->
                index.applyEvent(
                    IndexFixtures.event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, "")))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> index.start()).isInstanceOf(IllegalStateException.class);
    assertThat(index.sweepExpired()).isZero();
  }
}
