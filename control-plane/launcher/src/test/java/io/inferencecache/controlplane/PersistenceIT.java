package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A restart with a persisted index keeps its entries; stop closes the index cleanly. */
@Timeout(120)
class PersistenceIT {
  @TempDir Path dir;

  @Test
  void entriesSurviveARestart() throws Exception {
    final Path file = dir.resolve("index.dat");
    final String yaml = "index:\n  maxEntries: 10000\n  persistenceFile: " + file + "\n";
    try (TestServer first = TestServer.start(ServeOverrides.NONE.insecure(), yaml)) {
      first
          .index()
          .ingest(
              new IngestUpdate(
                  "vllm-0",
                  "m",
                  "team-a",
                  "vllm",
                  0,
                  "",
                  List.of(
                      IngestPrefix.chain(
                          List.of(
                              new byte[] {1, 2, 3, 4, 5, 6, 7, 8},
                              new byte[] {9, 9, 9, 9, 9, 9, 9, 9}),
                          new int[] {16, 16},
                          0)),
                  null));
      first.stop();
      assertThat(first.wiring().index().isReady()).isFalse();
      assertThat(first.wiring().readiness().ready()).isFalse();
    }
    assertThat(Files.exists(file)).isTrue();
    try (TestServer second = TestServer.start(ServeOverrides.NONE.insecure(), yaml)) {
      final JsonNode root =
          new ObjectMapper().readTree(Http.get(second.snapshotUrl("/snapshot")).body());
      assertThat(root.get("totalPrefixes").asLong()).isEqualTo(2);
      assertThat(root.get("replicas").get(0).get("replicaId").asText()).isEqualTo("vllm-0");
    }
  }
}
