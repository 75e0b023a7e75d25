package io.inferencecache.engine.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import net.openhft.chronicle.hash.serialization.impl.ByteArrayDataAccess;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How readers reach a run: inside Chronicle's {@code getUsing} ({@link RunValueReader}) for every
 * map the engine creates, in memory or persisted and reopened; through a query context for a file
 * whose header names Chronicle's own reader (created before the engine had one). Either way {@link
 * RunCursor#visit} sees what {@link RunCursor#open} sees, blocks inside a run (found through the
 * block directory) included.
 */
class RunStoreReadPathTest {
  private static final int PARTITION = 3;
  private static final int ROWS = 40;

  @TempDir Path dir;

  private static KeyBuffer key(final int i) {
    final byte[] h = new byte[8];
    for (int b = 0; b < 8; b++) {
      h[b] = (byte) ((i * 0x9E3779B1L) >>> (b * 8));
    }
    h[0] ^= (byte) i;
    final KeyBuffer k = new KeyBuffer();
    assertTrue(k.set(PARTITION, h, 0, 8));
    return k;
  }

  private static void fill(final RunStore store, final CounterArena arena) {
    store.chainStart();
    for (int b = 0; b < ROWS; b++) {
      store.upsert(key(b), 5, 16 * (b + 1), 1_000L + b, 1, arena, true);
      store.upsert(key(b), 9, 16 * (b + 1), 2_000L, 2, arena, true);
    }
    store.flush();
  }

  /** What a visit of block {@code b} saw: row, rows, holders and the row's tokens, or "absent". */
  private static String visited(final RunStore store, final int b) {
    final StringBuilder out = new StringBuilder();
    final RunCursor c = new RunCursor();
    final boolean found =
        c.visit(
            store,
            key(b),
            run ->
                out.append(run.row())
                    .append('/')
                    .append(run.rows())
                    .append(' ')
                    .append(run.holder(0))
                    .append(',')
                    .append(run.holder(1))
                    .append(' ')
                    .append(run.tokens(run.row(), run.paletteRef(run.row(), 0))));
    return found ? out.toString() : "absent";
  }

  private static String opened(final RunStore store, final int b) {
    try (RunCursor c = new RunCursor()) {
      if (!c.open(store, key(b))) {
        return "absent";
      }
      return c.row()
          + "/"
          + c.rows()
          + " "
          + c.holder(0)
          + ","
          + c.holder(1)
          + " "
          + c.tokens(c.row(), c.paletteRef(c.row(), 0));
    }
  }

  private static void assertVisitsMatchOpens(final RunStore store) {
    for (int b = 0; b <= ROWS; b++) {
      assertEquals(opened(store, b), visited(store, b), "block " + b);
    }
    assertEquals("17/40 5,9 288", visited(store, 17)); // through the block directory
    assertEquals("absent", visited(store, ROWS));
  }

  @Test
  void inMemoryStoresReadRunsInsideGetUsing() {
    try (RunStore store = RunStore.inMemory("read-path", 4096, 8, 2.0);
        CounterArena arena = CounterArena.inMemory(4096)) {
      assertTrue(store.readsInPlace());
      fill(store, arena);
      assertVisitsMatchOpens(store);
    }
  }

  @Test
  void aPersistedStoreKeepsReadingInPlaceAfterReopen() throws IOException {
    final File file = dir.resolve("prefixes.dat").toFile();
    try (RunStore store = RunStore.persisted(file, 4096, 8, 2.0, false);
        CounterArena arena = CounterArena.inMemory(4096)) {
      assertTrue(store.readsInPlace());
      fill(store, arena);
    }
    try (RunStore store = RunStore.persisted(file, 4096, 8, 2.0, false)) {
      assertTrue(store.readsInPlace());
      store.recover((p, r, s, g) -> true); // builds the block directory, as the index does on open
      assertVisitsMatchOpens(store);
    }
    try (RunStore store = RunStore.persisted(file, 4096, 8, 2.0, true)) {
      assertTrue(store.readsInPlace());
      store.recover((p, r, s, g) -> true);
      assertVisitsMatchOpens(store);
    }
  }

  @Test
  void aFileWithChroniclesOwnReaderIsReadThroughAQueryContext() throws IOException {
    final File file = dir.resolve("older.dat").toFile();
    final ChronicleMap<byte[], byte[]> older =
        RunMapSizing.builder("inference-cache-prefixes", 4096, 8, 2.0, true)
            .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayDataAccess())
            .valueReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new ByteArrayDataAccess())
            .createPersistedTo(file);
    older.close();
    try (RunStore store = RunStore.persisted(file, 4096, 8, 2.0, false);
        CounterArena arena = CounterArena.inMemory(4096)) {
      assertFalse(store.readsInPlace());
      fill(store, arena);
      assertVisitsMatchOpens(store);
    }
  }
}
