package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.legacy;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The last applied replication-stream sequence is recorded with the data and reopened with it. */
class AppliedSequenceTest extends IndexTestSupport {
  @TempDir Path dir;

  private boolean holds(final String hash) {
    index.lookup(exactReq("t", "m", "vllm", hash, 0), r);
    return r.outcome() == Outcome.PREFIX_MATCH;
  }

  @Test
  void startsAtZeroAndFollowsIngestEventsAndSkips() {
    assertThat(index.appliedSequence()).isZero();
    index.ingest(legacy("t", "m", "vllm", "r1", "a", 16), 5);
    assertThat(index.appliedSequence()).isEqualTo(5);
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "a", ""), 6);
    assertThat(index.appliedSequence()).isEqualTo(6);
    assertThat(holds("a")).isFalse();
    index.skipSequence(7);
    assertThat(index.appliedSequence()).isEqualTo(7);
  }

  @Test
  void ingestWithoutSequenceLeavesTheRecordedOne() {
    index.ingest(legacy("t", "m", "vllm", "r1", "a", 16), 3);
    index.ingest(legacy("t", "m", "vllm", "r1", "b", 16));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "b", ""));
    assertThat(index.appliedSequence()).isEqualTo(3);
  }

  @Test
  void aPersistedIndexReopensWithItsSequenceAndData() {
    final File file = dir.resolve("index.dat").toFile();
    reopen(baseConfig().persistenceFile(file));
    index.ingest(legacy("t", "m", "vllm", "r1", "a", 16), 41);
    index.ingest(legacy("t", "m", "vllm", "r1", "b", 16), 42);
    reopen(baseConfig().persistenceFile(file));
    assertThat(index.appliedSequence()).isEqualTo(42);
    assertThat(holds("a")).isTrue();
    assertThat(holds("b")).isTrue();
    assertThat(index.totalEntries()).isEqualTo(2);
  }

  @Test
  void aCopyTakenWhileOpenHoldsTheSequenceOfItsData() throws IOException {
    final File file = dir.resolve("index.dat").toFile();
    reopen(baseConfig().persistenceFile(file));
    index.ingest(legacy("t", "m", "vllm", "r1", "a", 16), 8);
    // The image a kill -9 leaves: the files as they are while the index is open.
    final Path copy = Files.createDirectories(dir.resolve("crash"));
    for (String suffix : List.of("", ".counters", ".open")) {
      Files.copy(Path.of(file.getPath() + suffix), copy.resolve("index.dat" + suffix));
    }
    index.ingest(legacy("t", "m", "vllm", "r1", "b", 16), 9);
    reopen(baseConfig().persistenceFile(copy.resolve("index.dat").toFile()));
    assertThat(index.appliedSequence()).isEqualTo(8);
    assertThat(holds("a")).isTrue();
    assertThat(holds("b")).isFalse();
  }

  @Test
  void theRecordIsNotAnEntry() {
    final File file = dir.resolve("index.dat").toFile();
    reopen(baseConfig().persistenceFile(file));
    index.skipSequence(100);
    reopen(baseConfig().persistenceFile(file));
    assertThat(index.appliedSequence()).isEqualTo(100);
    assertThat(index.totalEntries()).isZero();
    assertThat(index.totalKeys()).isZero();
    assertThat(index.verifyCounts()).isEmpty();
  }
}
