package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.specDp;
import static io.inferencecache.engine.IndexFixtures.specFreshness;
import static io.inferencecache.engine.IndexFixtures.update;
import static io.inferencecache.engine.LookupScoringTest.assertBits;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.inferencecache.engine.internal.RunLayout;
import io.inferencecache.engine.internal.RunStore;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A persisted index survives close and reopen, and never fails to open on a bad file. */
class PersistenceTest extends IndexTestSupport {
  @TempDir Path dir;
  private File file;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger indexLogger = (Logger) LoggerFactory.getLogger(CacheIndex.class);

  @BeforeEach
  void persisted() {
    logs.start();
    indexLogger.addAppender(logs);
    file = dir.resolve("index.dat").toFile();
    reopen(persistedConfig());
  }

  @AfterEach
  void detachLogs() {
    indexLogger.detachAppender(logs);
  }

  private IndexConfig persistedConfig() {
    return baseConfig().persistenceFile(file);
  }

  private File marker() {
    return new File(file.getPath() + ".open");
  }

  private File counters() {
    return new File(file.getPath() + ".counters");
  }

  private List<File> setAside() {
    final List<File> out = new ArrayList<>();
    for (File f : dir.toFile().listFiles()) {
      if (f.getName().contains(".corrupt-")) {
        out.add(f);
      }
    }
    return out;
  }

  private boolean logged(final Level level, final String text) {
    return logs.list.stream()
        .anyMatch(e -> e.getLevel() == level && e.getFormattedMessage().contains(text));
  }

  /** A mixed population: chains, legacy keys, several tenants, models, schemes, adapters. */
  private void populate() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1", "b2", "b3"));
    ingest(update("t", "m", "vllm", "r2").chainTier(Tier.T2, 16, "b0", "b1"));
    ingest(update("t", "m", "vllm", "r3").legacy("p1", 100).legacy("p2", 0));
    clock.advance(2, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 90));
    ingest(update("t", "m", "vllm", "r2").adapter("lora").legacy("p1", 70));
    ingest(update("u", "m2", "sglang", "s1").legacy("q", 64).chain(32, "c0", "c1"));
    ingest(update("", "m", "vllm", "anon").legacy("p1", 12));
    for (int i = 0; i < 3; i++) {
      route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3"));
      index.creditDelivered(r);
    }
    route(exactReq("t", "m", "vllm", "p1", 0));
    index.creditDelivered(r);
    clock.advance(1, TimeUnit.MINUTES);
  }

  private List<LookupRequest> probes() {
    final LookupRequest lora = exactReq("t", "m", "vllm", "p1", 0);
    lora.adapter().set("lora");
    return List.of(
        chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3"),
        chainReq("t", "m", "vllm", 16, "b0", "b1", "x"),
        exactReq("t", "m", "vllm", "p1", 0),
        exactReq("t", "m", "vllm", "p2", 0),
        lora,
        exactReq("u", "m2", "sglang", "q", 0),
        chainReq("u", "m2", "sglang", 32, "c0", "c1"),
        exactReq("", "m", "vllm", "p1", 0),
        exactReq("t", "m", "vllm", "novel", 0),
        exactReq("t", "m9", "vllm", "p1", 0),
        exactReq("x", "m", "vllm", "p1", 0));
  }

  /** Every probe's answer as text: outcome, then replica/matched/score bits/prob bits/tier. */
  private List<String> answers() {
    final List<String> out = new ArrayList<>();
    for (LookupRequest q : probes()) {
      index.lookupAndClassify(q, r);
      final StringBuilder b = new StringBuilder(r.outcome().name());
      for (int i = 0; i < r.size(); i++) {
        b.append(' ')
            .append(index.replicaName(r.replicaId(i)))
            .append('/')
            .append(r.matchedTokens(i))
            .append('/')
            .append(Float.floatToRawIntBits(r.score(i)))
            .append('/')
            .append(Float.floatToRawIntBits(r.estimatedCacheHitProb(i)))
            .append('/')
            .append(r.tier(i));
      }
      out.add(b.toString());
    }
    return out;
  }

  private List<Long> counts() {
    final List<Long> out = new ArrayList<>();
    for (String b : List.of("b0", "b1", "b2", "b3")) {
      out.add(index.accessCount("t", "m", "vllm", "", h(b), "r1"));
      out.add(index.accessCount("t", "m", "vllm", "", h(b), "r2"));
    }
    out.add(index.accessCount("t", "m", "vllm", "", h("p1"), "r1"));
    out.add(index.accessCount("t", "m", "vllm", "", h("p1"), "r3"));
    out.add(index.accessCount("t", "m", "vllm", "lora", h("p1"), "r2"));
    return out;
  }

  @Test
  void reopenAnswersEveryLookupTheSameWithLfuCountsAndTimestamps() {
    populate();
    final List<String> before = answers();
    final List<Long> countsBefore = counts();
    final long entries = index.totalEntries();
    final long keys = index.totalKeys();
    final IndexSnapshot snap = index.snapshot();
    assertThat(countsBefore).contains(3L, 1L);
    assertThat(marker()).exists();

    index.close();
    assertThat(marker()).doesNotExist();
    reopen(persistedConfig());

    assertThat(index.verifyCounts()).isEmpty();
    assertThat(index.totalEntries()).isEqualTo(entries);
    assertThat(index.totalKeys()).isEqualTo(keys);
    assertThat(answers()).isEqualTo(before);
    assertThat(counts()).isEqualTo(countsBefore);
    assertThat(index.snapshot()).isEqualTo(snap);
    assertThat(index.modelKeys("m"))
        .isEqualTo(
            snap.tenants().stream()
                .filter(t -> !t.tenantId().equals("u"))
                .mapToLong(IndexSnapshot.TenantRow::indexEntries)
                .sum());
    assertThat(setAside()).isEmpty();
    assertThat(logged(Level.INFO, "event=index_reopened")).isTrue();

    // timestamps survived: freshness keeps decaying from the original ingest times
    clock.advance(10, TimeUnit.MINUTES);
    route(exactReq("u", "m2", "sglang", "q", 0)); // ingested 11 minutes ago, alone in its scope
    assertBits(r.score(0), (float) 64 * specFreshness(minutes(11), IndexConfig.TTL_DEFAULT_NS));
    route(exactReq("t", "m", "vllm", "p1", 0)); // r1 (90, 11 min), r3 (100, 13 min) of 3
    assertThat(names(r)).containsExactly("r1", "r3");
    assertBits(
        r.score(0),
        (float) 90 * specFreshness(minutes(11), IndexConfig.TTL_DEFAULT_NS) * specDp(2, 3));
    clock.advance(17, TimeUnit.MINUTES); // the first ingests are now exactly 30 minutes old
    assertThat(route(chainReq("t", "m", "vllm", 16, "b0")).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(8); // r1's and r2's chains, r3's p1 and p2
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void lfuCountsKeepGrowingAndEvictionsWorkAfterReopen() {
    populate();
    index.close();
    reopen(persistedConfig());
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertThat(index.creditDelivered(r)).isEqualTo(4);
    assertThat(index.accessCount("t", "m", "vllm", "", h("b0"), "r1")).isEqualTo(4);
    index.applyEvent(IndexFixtures.event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    ingest(update("t", "m", "vllm", "r9").legacy("fresh", 1)); // may reuse a freed slot
    assertThat(index.accessCount("t", "m", "vllm", "", h("fresh"), "r9")).isZero();
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void dataAddedAfterAReopenSurvivesTheNextOne() {
    populate();
    index.close();
    reopen(persistedConfig());
    ingest(update("new-tenant", "new-model", "new-scheme", "new-replica").legacy("k", 33));
    final List<String> before = answers();
    index.close();
    reopen(persistedConfig());
    assertThat(answers()).isEqualTo(before);
    assertThat(names(route(exactReq("new-tenant", "new-model", "new-scheme", "k", 0))))
        .containsExactly("new-replica");
    assertThat(r.matchedTokens(0)).isEqualTo(33);
  }

  @Test
  void policyIdsInternedBeforeTheFirstIngestSurviveAReopen() {
    final int id = index.intern("only-a-policy-namespace");
    index.close();
    reopen(persistedConfig());
    assertThat(index.idOf("only-a-policy-namespace")).isEqualTo(id);
  }

  private void assertStartedEmptyAndSetAside() {
    assertThat(index.totalEntries()).isZero();
    assertThat(index.totalKeys()).isZero();
    assertThat(index.verifyCounts()).isEmpty();
    assertThat(setAside()).isNotEmpty();
    assertThat(logged(Level.ERROR, "event=index_set_aside")).isTrue();
    assertThat(file).exists();
    // and it is a working index, persisted again
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16));
    index.close();
    reopen(persistedConfig());
    assertThat(names(route(exactReq("t", "m", "vllm", "p", 0)))).containsExactly("r1");
  }

  @Test
  void aGarbageFileIsSetAsideAndTheIndexStartsEmpty() throws IOException {
    index.close();
    final byte[] junk = new byte[256 * 1024];
    new Random(42).nextBytes(junk);
    Files.write(file.toPath(), junk);
    Files.delete(counters().toPath());
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  /** Random bytes over a real index file, keeping its counter file (and optionally the marker). */
  private void garbleKeepingCounters(final long seed, final boolean unclean) throws IOException {
    populate();
    index.close();
    final byte[] junk = new byte[(int) file.length()];
    new Random(seed).nextBytes(junk);
    junk[11] |= (byte) 0x80; // Chronicle's size word reads "header not ready"
    Files.write(file.toPath(), junk);
    if (unclean) {
      Files.writeString(marker().toPath(), "open\n");
    }
  }

  @Test
  @Timeout(30)
  void aGarbageFileWithItsCounterFileIsSetAsideWithoutWaiting() throws IOException {
    garbleKeepingCounters(7, false);
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  @Timeout(30)
  void aGarbageFileLeftByAnUncleanShutdownIsSetAsideWithoutWaiting() throws IOException {
    garbleKeepingCounters(8, true);
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  @Timeout(30)
  void aGarbageFileWhoseHeaderLooksReadyIsSetAside() throws IOException {
    populate();
    index.close();
    final byte[] junk = new byte[(int) file.length()];
    new Random(9).nextBytes(junk);
    junk[8] = 100; // size word 100, ready bit clear: Chronicle reads and rejects the header
    junk[9] = 0;
    junk[10] = 0;
    junk[11] = 0;
    Files.write(file.toPath(), junk);
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  @Timeout(30)
  void aFileShorterThanAHeaderIsSetAsideWithoutWaiting() throws IOException {
    populate();
    index.close();
    try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
      raf.setLength(5);
    }
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  void aTruncatedFileIsSetAsideAndTheIndexStartsEmpty() throws IOException {
    populate();
    index.close();
    try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
      raf.setLength(raf.length() / 3);
    }
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  void anEmptyFileIsSetAside() throws IOException {
    index.close();
    try (RandomAccessFile raf = new RandomAccessFile(file, "rw")) {
      raf.setLength(0);
    }
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  void aCounterFileLongerThanTheBudgetIsSetAside() throws IOException {
    populate();
    index.close();
    try (RandomAccessFile raf = new RandomAccessFile(counters(), "rw")) {
      // this small index's counters are one chunk covering its whole budget: one more is too many
      assertThat(raf.length()).isEqualTo(8L * (10_000 + 10_000 / 8 + 1024)); // cap, headroom, probe
      raf.setLength(raf.length() + 8);
    }
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  private RunStore rawStore() throws IOException {
    return RunStore.persisted(
        file,
        10_000,
        IndexConfig.AVERAGE_HASH_BYTES_DEFAULT,
        IndexConfig.AVERAGE_HOLDERS_PER_KEY_DEFAULT,
        false);
  }

  /** Writes one raw metadata record into the closed index file. */
  private void putRaw(final byte[] key, final byte[] value) throws IOException {
    try (RunStore store = rawStore()) {
      store.putRaw(key, value);
    }
  }

  /** The id the next partition record of the closed index file would get. */
  private int nextPartitionId() throws IOException {
    try (RunStore store = rawStore()) {
      int id = 0;
      while (store.getRaw(metaKey('P', id)) != null) {
        id++;
      }
      return id;
    }
  }

  private static byte[] metaKey(final char kind, final int id) {
    return ByteBuffer.allocate(9).putInt(-1).put((byte) kind).putInt(id).array();
  }

  @Test
  void aLayout2FileIsMigratedOnOpenByDroppingItsLocatorEntries() throws IOException {
    final String[] chain = new String[10];
    for (int i = 0; i < chain.length; i++) {
      chain[i] = "mig" + i;
    }
    ingest(update("t", "m", "vllm", "r1").chain(16, chain));
    index.close();
    // What layout 2 kept besides the runs: one locator entry per later block of a run (tag, row,
    // the run's first hash), and version 2 in the header.
    final long runsOnly;
    try (RunStore store = rawStore()) {
      runsOnly = store.entries();
      final List<byte[]> keys = new ArrayList<>();
      store.forEachBlock((k, len, holders) -> keys.add(java.util.Arrays.copyOf(k, len)));
      assertThat(keys).hasSize(chain.length);
      final byte[] head = keyOf(keys, chain[0]);
      for (int row = 1; row < chain.length; row++) {
        final ByteBuffer locator =
            ByteBuffer.allocate(RunLayout.LOCATOR_HASH_OFFSET + head.length - 4);
        locator.put(RunLayout.LOCATOR_TAG).put((byte) row).put(head, 4, head.length - 4);
        store.putRaw(keyOf(keys, chain[row]), locator.array());
      }
      store.putRaw(metaKey('H', 0), ByteBuffer.allocate(8).putInt(0x49434958).putInt(2).array());
      assertThat(store.entries()).isEqualTo(runsOnly + chain.length - 1);
    }
    reopen(persistedConfig());
    assertThat(setAside()).isEmpty();
    assertThat(logged(Level.INFO, "event=index_migrated")).isTrue();
    assertThat(index.state().storage.main().entries())
        .as("the locators are gone")
        .isEqualTo(runsOnly);
    route(chainReq("t", "m", "vllm", 16, chain));
    assertThat(r.size()).isEqualTo(1);
    assertThat(r.matchedTokens(0)).isEqualTo(16 * chain.length);
    // a lookup that starts inside the run finds it through the rebuilt block directory
    route(chainReq("t", "m", "vllm", 16, chain[4], chain[5], chain[6]));
    assertThat(r.size()).isEqualTo(1);
    assertThat(r.matchedTokens(0)).isEqualTo(16 * 3); // all three blocks matched
    index.close();
    try (RunStore store = rawStore()) {
      assertThat(ByteBuffer.wrap(store.getRaw(metaKey('H', 0))).getInt(4))
          .isEqualTo(CacheIndex.LAYOUT_VERSION);
    }
    logs.list.clear();
    reopen(persistedConfig());
    assertThat(logged(Level.INFO, "event=index_migrated")).isFalse();
    route(chainReq("t", "m", "vllm", 16, chain));
    assertThat(r.matchedTokens(0)).isEqualTo(16 * chain.length);
  }

  private static byte[] keyOf(final List<byte[]> keys, final String hash) {
    final byte[] h = h(hash);
    for (byte[] k : keys) {
      if (java.util.Arrays.equals(k, 4, k.length, h, 0, h.length)) {
        return k;
      }
    }
    throw new AssertionError("no stored key for " + hash);
  }

  @Test
  void aFileOfAnotherLayoutVersionIsSetAside() throws IOException {
    populate();
    index.close();
    putRaw(
        metaKey('H', 0),
        ByteBuffer.allocate(8).putInt(0x49434958).putInt(CacheIndex.LAYOUT_VERSION + 1).array());
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  void aTornPartitionRecordIsSetAsideAndTheIndexStartsEmpty() throws IOException {
    populate(); // creates several partitions (ids 0..n-1)
    index.close();
    final int next = nextPartitionId();
    assertThat(next).isGreaterThan(1);
    putRaw(metaKey('P', next), new byte[] {1, 2, 3});
    reopen(persistedConfig());
    assertStartedEmptyAndSetAside();
  }

  @Test
  void anUncleanShutdownMarkerReopensInRecoveryMode() throws IOException {
    populate();
    final List<String> before = answers();
    final List<Long> countsBefore = counts();
    index.close();
    Files.writeString(marker().toPath(), "open\n");
    reopen(persistedConfig());
    assertThat(logged(Level.WARN, "event=index_recovering")).isTrue();
    assertThat(answers()).isEqualTo(before);
    assertThat(counts()).isEqualTo(countsBefore);
    assertThat(index.verifyCounts()).isEmpty();
    assertThat(setAside()).isEmpty();
    assertThat(marker()).exists();
    index.close();
    assertThat(marker()).doesNotExist();
  }

  @Test
  void aCopyTakenWhileOpenReopensInRecoveryMode() throws IOException {
    populate();
    final List<String> before = answers();
    final Path copy = dir.resolve("copy");
    Files.createDirectories(copy);
    for (String suffix : List.of("", ".counters", ".open")) {
      Files.copy(Path.of(file.getPath() + suffix), copy.resolve("index.dat" + suffix));
    }
    index.close();
    file = copy.resolve("index.dat").toFile();
    reopen(persistedConfig());
    assertThat(logged(Level.WARN, "event=index_recovering")).isTrue();
    assertThat(answers()).isEqualTo(before);
    assertThat(index.verifyCounts()).isEmpty();
  }
}
