package io.inferencecache.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.CacheIndexV1;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A persisted file written by the v1 layout ({@code CacheIndexV1}) is not migrated: opening it with
 * the v2 engine sets it (and its counter file) aside and starts a working, empty index, without an
 * exception — no crash loop across restarts.
 */
class V1FileSetAsideTest {
  @TempDir Path dir;

  private static IngestUpdate update(final String replica, final byte[]... hashes) {
    final int[] counts = new int[hashes.length];
    java.util.Arrays.fill(counts, 16);
    return new IngestUpdate(
        replica,
        "m",
        "t",
        "vllm",
        0,
        "",
        List.of(IngestPrefix.chain(List.of(hashes), counts, 1)),
        null);
  }

  @Test
  void aV1FileIsSetAsideAndTheV2IndexStartsEmptyAndWorks() {
    final File file = dir.resolve("index.dat").toFile();
    final IndexConfig config = new IndexConfig().maxEntries(10_000).persistenceFile(file);
    final byte[] h1 = {1, 2, 3, 4, 5, 6, 7, 8};
    final byte[] h2 = {9, 9, 9, 9, 9, 9, 9, 9};
    try (CacheIndexV1 v1 = CacheIndexV1.open(config)) {
      v1.ingest(update("r1", h1, h2));
      assertThat(v1.totalEntries()).isEqualTo(2);
    }

    try (CacheIndex v2 = CacheIndex.open(config)) {
      assertThat(v2.totalEntries()).isZero();
      assertThat(v2.verifyCounts()).isEmpty();
      assertThat(dir.toFile().list((d, n) -> n.contains(".corrupt-"))).hasSize(2);
      v2.ingest(update("r2", h1, h2));
    }
    // Reopened as a v2 file: kept, nothing more set aside.
    try (CacheIndex v2 = CacheIndex.open(config)) {
      assertThat(v2.totalEntries()).isEqualTo(2);
      assertThat(dir.toFile().list((d, n) -> n.contains(".corrupt-"))).hasSize(2);
      final LookupResult r = new LookupResult();
      final LookupRequest q = new LookupRequest();
      q.reset().keys("t", "m", "vllm", "").addBlockHash(h1).addBlockTokenCount(16);
      q.addBlockHash(h2).addBlockTokenCount(16);
      v2.lookupRoute(q, r);
      assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
      assertThat(v2.replicaName(r.replicaId(0))).isEqualTo("r2");
      assertThat(r.matchedTokens(0)).isEqualTo(32);
    }
  }
}
