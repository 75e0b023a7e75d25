package io.inferencecache.controlplane.server.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.api.ProbeRequest;
import io.inferencecache.controlplane.api.ProbeResult;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ProberTest {
  private CacheIndex index;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
  }

  @AfterEach
  void close() {
    index.close();
  }

  @Test
  void probeHashIsDeterministicAndInjective() {
    assertThat(Prober.probeHash("s", "m", "b"))
        .hasSize(32)
        .isEqualTo(Prober.probeHash("s", "m", "b"));
    assertThat(Prober.probeHash("s", "m2", "b")).isNotEqualTo(Prober.probeHash("s", "m", "b"));
    assertThat(Prober.probeHash("a", "bc", "d")).isNotEqualTo(Prober.probeHash("ab", "c", "d"));
    assertThat(Prober.replicaId("vllm-0")).isEqualTo("__probe-vllm-0");
  }

  @Test
  void happyPathPassesStagesAAndBAndSkipsT2WithoutAProber() {
    final ProbeResult r = new Prober(() -> index, null).run(new ProbeRequest("b", "m", "vllm", ""));
    assertThat(r).isEqualTo(new ProbeResult("b", "ok", "ok", "skipped", List.of()));
    assertThat(index.reservedEntries()).isZero();
    assertThat(index.totalEntries()).isZero();
  }

  @Test
  void t2RunsOnlyForLmCacheOrUnspecifiedBackends() {
    final List<byte[]> payloads = new ArrayList<>();
    final Prober prober = new Prober(() -> index, (b, m, k, p) -> payloads.add(p));
    assertThat(prober.run(new ProbeRequest("b", "m", "vllm", "LMCache")).t2()).isEqualTo("ok");
    assertThat(prober.run(new ProbeRequest("b", "m", "vllm", "")).t2()).isEqualTo("ok");
    assertThat(prober.run(new ProbeRequest("b", "m", "vllm", "Memory")).t2()).isEqualTo("skipped");
    assertThat(payloads).hasSize(2);
    assertThat(new String(payloads.get(0), 0, 17, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("probe-payload-v1\n");
    final ProbeResult failed =
        new Prober(
                () -> index,
                (b, m, k, p) -> {
                  throw new Exception("get failed: miss");
                })
            .run(new ProbeRequest("b", "m", "vllm", ""));
    assertThat(failed.t2()).isEqualTo("failed");
    assertThat(failed.errors().get(0).message())
        .isEqualTo("T2 put/get cycle failed: get failed: miss");
  }

  @Test
  void concurrentProbesForTheSameBackendAllSucceedAndLeaveNoState() throws Exception {
    final Prober prober = new Prober(() -> index, null);
    final ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      final List<Future<ProbeResult>> results = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        final Callable<ProbeResult> c = () -> prober.run(new ProbeRequest("b", "m", "vllm", ""));
        results.add(pool.submit(c));
      }
      for (final Future<ProbeResult> f : results) {
        assertThat(f.get().allPassed()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(index.reservedEntries()).isZero();
  }
}
