package io.inferencecache.perf.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Smoke tests of the service benchmarks at toy sizes: they run, check their answers and report. */
@Timeout(120)
class ServiceBenchmarksTest {

  @Test
  void inProcessPathsAgreeAndAnswer() throws Exception {
    final LookupRoutePathBenchmark b = new LookupRoutePathBenchmark();
    b.chains = 32;
    b.holders = 3;
    b.replicas = 8;
    b.setUp(); // checks every request's answer on all three paths
    try {
      assertThat(b.zeroCopyDirect()).isPositive();
      assertThat(b.zeroCopyHeap()).isPositive();
      assertThat(b.protobuf()).isPositive();
    } finally {
      b.tearDown();
    }
  }

  @Test
  void loopbackLoadRunsEveryStepWithoutErrors(@TempDir final Path dir) throws Exception {
    final Path out = dir.resolve("loopback.json");
    LoopbackLoad.main(
        new String[] {
          "--chains",
          "16",
          "--holders",
          "2",
          "--replicas",
          "4",
          "--concurrency",
          "1,4",
          "--jit-warmup",
          "0",
          "--warmup",
          "0.2",
          "--duration",
          "0.5",
          "--open-rate",
          "200",
          "--open-duration",
          "0.5",
          "--out",
          out.toString()
        });
    final JsonNode r = new ObjectMapper().readTree(out.toFile());
    assertThat(r.get("rows")).hasSize(6);
    assertThat(r.get("errors").asLong()).isZero();
    for (JsonNode row : r.get("rows")) {
      assertThat(row.get("calls").asLong()).as(row.toString()).isPositive();
    }
    assertThat(r.get("rows").get(4).get("rpc").asText()).isEqualTo("LookupRoute");
    assertThat(r.get("rows").get(4).get("mode").asText()).isEqualTo("open");
  }
}
