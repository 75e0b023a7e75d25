package io.inferencecache.engine;

import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StringDictionary;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.BitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index's storage: the prefix map ({@link RunStore}, layout {@code RunLayout}), the reserved
 * probe tenant's small in-memory map, the LFU {@link CounterArena}, and — when persisted — the
 * file's life cycle: the header record, the dictionary and partition metadata records, the {@code
 * .open} marker, the rebuild of the secondary counts on reopen and setting an unusable file aside
 * (engine/docs/design.md §6).
 *
 * <p><b>Threads.</b> Opened and closed by one thread; metadata records are written by the index
 * writer.
 */
final class IndexStorage {
  private static final Logger LOG = LoggerFactory.getLogger(CacheIndex.class);
  private static final byte[] HEADER_KEY = metaKey('H', 0);
  private static final int HEADER_MAGIC = 0x49434958; // "ICIX"

  /** An existing index file that cannot be used as it is. */
  static final class CorruptIndexException extends Exception {
    private static final long serialVersionUID = 1L;

    CorruptIndexException(final Throwable cause) {
      super(cause);
    }
  }

  private final IndexConfig config;
  private final File file;
  private final PartitionRegistry registry;
  private final SecondaryCounts counts;
  private final RunStore reserved;
  private RunStore main;
  private CounterArena arena;
  private int persistedStrings;
  private int persistedPartitions;

  IndexStorage(
      final IndexConfig config, final PartitionRegistry registry, final SecondaryCounts counts) {
    this.config = config;
    this.file = config.persistenceFile();
    this.registry = registry;
    this.counts = counts;
    this.reserved =
        RunStore.inMemory(
            "inference-cache-reserved", config.reservedCapacity(), config.averageHashBytes(), 1.0);
  }

  RunStore main() {
    return main;
  }

  RunStore reserved() {
    return reserved;
  }

  /** The store of {@code p}'s keys: the reserved map for the probe tenant, else the main map. */
  RunStore storeOf(final Partition p) {
    return p.reserved() ? reserved : main;
  }

  CounterArena arena() {
    return arena;
  }

  /** The arena's budget: the cap, headroom for one update's overshoot, and the reserved map. */
  private int arenaCapacity() {
    final long max = config.maxEntries();
    return (int)
        Math.min(Integer.MAX_VALUE - 1L, max + Math.max(1024, max / 8) + config.reservedCapacity());
  }

  /** Opens (or creates) the storage; a persisted file is reopened with every entry. */
  void open() throws CorruptIndexException {
    if (file == null) {
      main =
          RunStore.inMemory(
              "inference-cache-prefixes",
              config.maxEntries(),
              config.averageHashBytes(),
              config.averageHoldersPerKey());
      arena = CounterArena.inMemory(arenaCapacity());
      return;
    }
    final File marker = marker();
    final File counters = new File(file.getPath() + ".counters");
    final boolean existed = file.exists();
    final boolean unclean = existed && marker.exists();
    try {
      openPersisted(counters, existed, unclean);
    } catch (IOException | RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
        throw vme;
      }
      closeQuietly();
      throw new CorruptIndexException(e);
    }
    try {
      Files.writeString(marker.toPath(), "open\n");
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + marker, e);
    }
  }

  private File marker() {
    return new File(file.getPath() + ".open");
  }

  private void openPersisted(final File counters, final boolean existed, final boolean unclean)
      throws IOException {
    if (file.getParentFile() != null) {
      Files.createDirectories(file.getParentFile().toPath());
    }
    if (existed && (!counters.exists())) {
      throw new IOException("counter file " + counters + " is missing");
    }
    if (unclean) {
      LOG.warn("event=index_recovering file={}: the last process did not close it cleanly", file);
    }
    main =
        RunStore.persisted(
            file,
            config.maxEntries(),
            config.averageHashBytes(),
            config.averageHoldersPerKey(),
            unclean);
    arena = CounterArena.mapped(counters, arenaCapacity());
    if (!existed) {
      final ByteBuffer hb = ByteBuffer.allocate(8);
      hb.putInt(HEADER_MAGIC).putInt(CacheIndex.LAYOUT_VERSION);
      main.putRaw(HEADER_KEY, hb.array());
      return;
    }
    final byte[] header = main.getRaw(HEADER_KEY);
    if (header == null || header.length < 8) {
      throw new IOException("index file has no header record");
    }
    final ByteBuffer hb = ByteBuffer.wrap(header);
    final int magic = hb.getInt();
    final int version = hb.getInt();
    if (magic != HEADER_MAGIC
        || version != CacheIndex.LAYOUT_VERSION && version != CacheIndex.MIGRATED_LAYOUT_VERSION) {
      throw new IOException("index file is of another layout version");
    }
    rebuild();
    if (version == CacheIndex.MIGRATED_LAYOUT_VERSION) {
      main.putRaw(
          HEADER_KEY,
          ByteBuffer.allocate(8).putInt(HEADER_MAGIC).putInt(CacheIndex.LAYOUT_VERSION).array());
      LOG.info(
          "event=index_migrated file={} from_layout={} to_layout={}: locator entries removed",
          file,
          version,
          CacheIndex.LAYOUT_VERSION);
    }
  }

  /** Moves an unusable index file and its counter file aside, logging one ERROR line. */
  static void setAside(final File file, final Throwable reason) {
    final String aside = file.getPath() + ".corrupt-" + System.currentTimeMillis();
    LOG.error(
        "event=index_set_aside file={} moved_to={} reason=\"{}\": starting with an empty index",
        file,
        aside,
        String.valueOf(reason));
    moveAside(file, new File(aside));
    moveAside(new File(file.getPath() + ".counters"), new File(aside + ".counters"));
  }

  private static void moveAside(final File from, final File to) {
    if (from.exists()) {
      try {
        Files.move(from.toPath(), to.toPath(), StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        LOG.error("event=index_set_aside_failed file={} reason=\"{}\"", from, String.valueOf(e));
        if (!from.delete()) {
          LOG.error("event=index_delete_failed file={}", from);
        }
      }
    }
  }

  private void closeQuietly() {
    try {
      if (main != null) {
        main.close();
      }
    } catch (RuntimeException ignored) {
      // already failing
    }
    try {
      if (arena != null) {
        arena.close();
      }
    } catch (RuntimeException ignored) {
      // already failing
    }
    try {
      reserved.close();
    } catch (RuntimeException ignored) {
      // already failing
    }
    main = null;
    arena = null;
  }

  /** Writes pending metadata, closes the maps and the arena and removes the marker. Writer only. */
  void close() {
    persistNewMetadata();
    main.close();
    reserved.close();
    arena.close();
    if (file != null) {
      final File marker = marker();
      if (!marker.delete()) {
        LOG.warn("event=index_marker_not_removed file={}", marker);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Metadata records (partition id 0xFFFFFFFF): the dictionary and the partitions

  private static byte[] metaKey(final char kind, final int id) {
    final byte[] k = new byte[9];
    k[0] = (byte) 0xFF;
    k[1] = (byte) 0xFF;
    k[2] = (byte) 0xFF;
    k[3] = (byte) 0xFF;
    k[4] = (byte) kind;
    k[5] = (byte) (id >>> 24);
    k[6] = (byte) (id >>> 16);
    k[7] = (byte) (id >>> 8);
    k[8] = (byte) id;
    return k;
  }

  /**
   * Writes the dictionary strings and partitions created since the last call (before any entry that
   * names them is stored for good). Writer only; a no-op in memory.
   */
  void persistNewMetadata() {
    if (file == null) {
      return;
    }
    final StringDictionary dict = registry.dictionary();
    final int strings = dict.size();
    while (persistedStrings < strings) {
      final int id = persistedStrings;
      main.putRaw(metaKey('S', id), dict.utf8(id));
      persistedStrings++;
    }
    final int parts = registry.partitionCount();
    while (persistedPartitions < parts) {
      final Partition p = registry.partitionById(persistedPartitions);
      final ByteBuffer b = ByteBuffer.allocate(16);
      b.putInt(p.tenant()).putInt(p.model()).putInt(p.scheme()).putInt(p.adapter());
      main.putRaw(metaKey('P', p.id()), b.array());
      persistedPartitions++;
    }
  }

  private void rebuild() throws IOException {
    final StringDictionary dict = registry.dictionary();
    for (int id = 0; ; id++) {
      final byte[] s = main.getRaw(metaKey('S', id));
      if (s == null) {
        persistedStrings = id;
        break;
      }
      dict.restore(id, new String(s, StandardCharsets.UTF_8));
    }
    for (int id = 0; ; id++) {
      final byte[] p = main.getRaw(metaKey('P', id));
      if (p == null) {
        persistedPartitions = id;
        break;
      }
      if (p.length != 16) {
        throw new IOException("partition record " + id + " is torn");
      }
      final ByteBuffer b = ByteBuffer.wrap(p);
      final int t = b.getInt();
      final int m = b.getInt();
      final int s = b.getInt();
      final int a = b.getInt();
      if (t >= persistedStrings
          || m >= persistedStrings
          || s >= persistedStrings
          || a >= persistedStrings) {
        throw new IOException("partition record " + id + " names an unknown string");
      }
      final int assigned = registry.partitionFor(t, m, s, a).id();
      if (assigned != id) {
        throw new IOException("partition record " + id + " is out of order");
      }
    }
    final BitSet used = new BitSet();
    final int strings = persistedStrings;
    final long dropped =
        main.recover(
            (pid, replica, slot, gen) -> {
              final boolean valid =
                  pid >= 0
                      && pid < persistedPartitions
                      && registry.partitionById(pid) != null
                      && replica >= 0
                      && replica < strings
                      && (slot == CounterArena.NO_COUNTER
                          || (slot >= 0 && !used.get(slot) && arena.claimOnRecovery(slot, gen)));
              if (valid && slot >= 0) {
                used.set(slot);
              }
              return valid;
            });
    main.forEachBlock(
        (key, keyLength, holders) -> {
          final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
          counts.keyAdded(p);
          for (int i = 0; i < holders.count(); i++) {
            counts.holderAdded(p, holders.replica(i));
          }
        });
    arena.rebuildFreeList(used, counts.totalEntries());
    if (dropped > 0) {
      LOG.warn(
          "event=index_recovered_with_drops file={} dropped_entries={}: untrusted records removed",
          file,
          dropped);
    }
    LOG.info(
        "event=index_reopened file={} entries={} keys={}",
        file,
        counts.totalEntries(),
        counts.totalKeys());
  }

  /** Off-heap bytes of the prefix map and the LFU counters (reserved map excluded). */
  long offHeapBytes() {
    return main.offHeapBytes() + arena.bytes();
  }

  /** Heap bytes of the prefix map's block directory (reserved map excluded). */
  long directoryBytes() {
    return main.directoryBytes();
  }
}
