package io.inferencecache.engine.internal;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.BitSet;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.collections.IntArrayList;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The storage budget of the index — how many storage entries it may hold — and the off-heap LFU
 * access counters of the entries that have one, at fixed addresses, one 8-byte word each.
 *
 * <pre>
 *   0                   16                                              64
 *   +-------------------+-----------------------------------------------+
 *   | generation (u16)  | access count (u48, saturating)                |
 *   +-------------------+-----------------------------------------------+
 * </pre>
 *
 * Every storage entry counts against the budget ({@link #hasFree()}); only entries of tenants that
 * evict by LFU take a counter (the others record {@link #NO_COUNTER}), so an index of LRU tenants
 * spends no counter memory. Counters are allocated in chunks of {@link #CHUNK_SLOTS} slots as they
 * are first needed, never more than the budget.
 *
 * <p>An entry records its slot and the slot's generation when the slot was handed to it. Readers
 * credit a hit with {@link #incrementIfGeneration} — a CAS loop on the word that gives up if the
 * generation moved on (the entry was removed and the slot possibly reused) — so credits are
 * lock-free, never lost under contention and never land on a different entry. Slots are allocated
 * and freed by the single index writer only. Freeing bumps the generation. A chunk is published
 * (release store) before any entry names one of its slots, so a reader that found a slot finds its
 * chunk.
 *
 * <p>The counters are heap-free direct buffers, or regions of one memory-mapped file when the index
 * is persisted (the file grows a chunk at a time), so counts survive a restart and a crash.
 */
public final class CounterArena implements Closeable {
  /** Bytes per slot. */
  public static final int SLOT_BYTES = 8;

  /** The slot an entry without a counter records. */
  public static final int NO_COUNTER = -1;

  /** Slots per chunk: counter memory grows 512 KiB at a time. */
  public static final int CHUNK_SLOTS = 1 << 16;

  private static final int CHUNK_SHIFT = 16;
  private static final int CHUNK_MASK = CHUNK_SLOTS - 1;
  private static final int GEN_SHIFT = 48;
  private static final long COUNT_MASK = (1L << GEN_SHIFT) - 1;

  /**
   * System property: the most counter chunks an arena may allocate (test knob: 0 makes every growth
   * fail, as exhausted direct memory would). Default unlimited.
   */
  public static final String MAX_CHUNKS_PROP_NAME = "inferencecache.engine.maxCounterChunks";

  private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(UnsafeBuffer[].class);

  private final int capacity;
  private final int maxChunks = Integer.getInteger(MAX_CHUNKS_PROP_NAME, Integer.MAX_VALUE);
  private final UnsafeBuffer[] chunks;
  private final ByteBuffer[] buffers;
  private final FileChannel channel; // null in memory
  private final RandomAccessFile raf;
  private volatile int chunkCount; // read by metrics threads through bytes()
  private long entries;
  private final IntArrayList free = new IntArrayList();
  private int highWater;

  private CounterArena(final int capacity, final RandomAccessFile raf) {
    this.capacity = capacity;
    final int n = (int) (((long) capacity + CHUNK_SLOTS - 1) >>> CHUNK_SHIFT);
    this.chunks = new UnsafeBuffer[n];
    this.buffers = new ByteBuffer[n];
    this.raf = raf;
    this.channel = raf == null ? null : raf.getChannel();
  }

  /** An in-memory arena with a budget of {@code capacity} entries. */
  public static CounterArena inMemory(final int capacity) {
    return new CounterArena(capacity, null);
  }

  /**
   * Maps {@code file} as an arena with a budget of {@code capacity} entries, creating it (empty) if
   * absent. The file holds the counters of the chunks allocated so far; one holding more slots than
   * the budget, or a partial slot, is an error (the caller sets the index aside). A file of the
   * earlier fixed-size format (budget × 8 bytes) opens as it is.
   */
  public static CounterArena mapped(final File file, final int capacity) throws IOException {
    final RandomAccessFile raf = new RandomAccessFile(file, "rw");
    try {
      final long length = raf.length();
      if (length % SLOT_BYTES != 0 || length / SLOT_BYTES > capacity) {
        throw new IOException(
            "counter file "
                + file
                + " has "
                + length
                + " bytes, expected a multiple of 8 up to "
                + (long) capacity * SLOT_BYTES);
      }
      final CounterArena arena = new CounterArena(capacity, raf);
      try {
        final long slots = length / SLOT_BYTES;
        for (int k = 0; (long) k << CHUNK_SHIFT < slots; k++) {
          arena.addChunk(k);
        }
        return arena;
      } catch (IOException | RuntimeException e) {
        arena.close(); // unmaps what was mapped, closes the file
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      raf.close();
      throw e;
    }
  }

  /** The budget: storage entries the index may hold. */
  public int capacity() {
    return capacity;
  }

  /** Storage entries counted against the budget. Writer only. */
  public long used() {
    return entries;
  }

  /** Counters currently handed out. Writer only. */
  public int counters() {
    return highWater - free.size();
  }

  /** Whether one more entry fits in the budget. Writer only. */
  public boolean hasFree() {
    return entries < capacity;
  }

  /** {@link #allocate(boolean) allocate(true)}. */
  public long allocate() {
    return allocate(true);
  }

  /**
   * Whether the next counter can be handed out without allocating: grows the counters by a chunk if
   * it has to, and answers false when that fails — direct memory exhausted, or the counter file
   * cannot grow (no slot is taken and no count changes; a chunk added before the failure stays).
   * Writer only; call before {@link #allocate(boolean) allocate(true)} or {@link #assign}.
   */
  public boolean counterRoom() {
    return counterRoom(1);
  }

  /** As {@link #counterRoom()} for the next {@code n} counters. Writer only. */
  public boolean counterRoom(final int n) {
    final long fresh = (long) n - free.size(); // counters beyond the free list
    if (fresh <= 0) {
      return true;
    }
    final long last = highWater + fresh - 1;
    if (last >= capacity) {
      return false;
    }
    try {
      for (int k = highWater >>> CHUNK_SHIFT; k <= (int) (last >>> CHUNK_SHIFT); k++) {
        if (chunks[k] == null) {
          addChunk(k);
        }
      }
      return true;
    } catch (IOException | OutOfMemoryError e) { // OutOfMemoryError: "Direct buffer memory"
      return false;
    }
  }

  /**
   * Counts one more entry against the budget and, when {@code counter}, hands it a slot with a zero
   * count. Returns {@code slot << 16 | generation} ({@link #NO_COUNTER} and 0 without a counter),
   * or -1 when the budget is spent. Writer only; with {@code counter}, after {@link #counterRoom()}
   * said yes.
   */
  public long allocate(final boolean counter) {
    if (entries >= capacity) {
      return -1;
    }
    final long sg = counter ? nextSlot() : (long) NO_COUNTER << 16;
    entries++;
    return sg;
  }

  /**
   * Hands a counter (zero count) to an entry already counted against the budget, one that was
   * stored without one. Returns {@code slot << 16 | generation}. Writer only, after {@link
   * #counterRoom()} said yes.
   */
  public long assign() {
    return nextSlot();
  }

  private long nextSlot() {
    final int slot = free.isEmpty() ? highWater : free.getInt(free.size() - 1);
    final UnsafeBuffer chunk = chunkFor(slot); // may grow: before anything is committed
    if (slot == highWater) {
      highWater++;
    } else {
      free.removeAt(free.size() - 1);
    }
    final int offset = (slot & CHUNK_MASK) * SLOT_BYTES;
    final long word = chunk.getLongVolatile(offset);
    final int gen = (int) ((word >>> GEN_SHIFT) + 1) & 0xFFFF;
    chunk.putLongRelease(offset, (long) gen << GEN_SHIFT);
    return ((long) slot << 16) | gen;
  }

  private UnsafeBuffer chunkFor(final int slot) {
    final int k = slot >>> CHUNK_SHIFT;
    final UnsafeBuffer chunk = chunks[k];
    if (chunk != null) {
      return chunk;
    }
    try {
      return addChunk(k);
    } catch (IOException e) {
      throw new IllegalStateException("cannot grow the LFU counter file", e);
    }
  }

  private UnsafeBuffer addChunk(final int k) throws IOException {
    if (k >= maxChunks) {
      throw new IOException("counter chunk " + k + " is over " + MAX_CHUNKS_PROP_NAME);
    }
    final int slots = (int) Math.min(CHUNK_SLOTS, capacity - ((long) k << CHUNK_SHIFT));
    final ByteBuffer b;
    if (channel == null) {
      b = ByteBuffer.allocateDirect(slots * SLOT_BYTES);
    } else {
      final long at = ((long) k << CHUNK_SHIFT) * SLOT_BYTES;
      final long end = at + (long) slots * SLOT_BYTES;
      if (raf.length() < end) {
        raf.setLength(end);
      }
      b = channel.map(FileChannel.MapMode.READ_WRITE, at, (long) slots * SLOT_BYTES);
    }
    final UnsafeBuffer chunk = new UnsafeBuffer(b);
    chunk.verifyAlignment(); // CAS on the words needs 8-byte alignment
    buffers[k] = b;
    CHUNK.setRelease(chunks, k, chunk);
    chunkCount = Math.max(chunkCount, k + 1);
    return chunk;
  }

  /**
   * Frees an entry's place in the budget and, if it has one ({@code slot} not {@link #NO_COUNTER}),
   * its counter; the generation moves on so late credits to it are discarded. Writer only.
   */
  public void release(final int slot) {
    entries--;
    if (slot == NO_COUNTER) {
      return;
    }
    final UnsafeBuffer chunk = chunks[slot >>> CHUNK_SHIFT];
    final int offset = (slot & CHUNK_MASK) * SLOT_BYTES;
    final long word = chunk.getLongVolatile(offset);
    final long gen = ((word >>> GEN_SHIFT) + 1) & 0xFFFF;
    chunk.putLongRelease(offset, gen << GEN_SHIFT);
    free.addInt(slot);
  }

  /**
   * Whether a reopened entry's counter can be trusted: {@code slot} lies in the file and still has
   * generation {@code gen} (used when rebuilding the free list after reopening a persisted index;
   * marks the slot in use).
   */
  public boolean claimOnRecovery(final int slot, final int gen) {
    if (slot < 0 || slot >= capacity || (slot >>> CHUNK_SHIFT) >= chunkCount) {
      return false;
    }
    final UnsafeBuffer chunk = chunks[slot >>> CHUNK_SHIFT];
    if ((slot & CHUNK_MASK) >= chunk.capacity() / SLOT_BYTES) {
      return false;
    }
    highWater = Math.max(highWater, slot + 1);
    final long word = chunk.getLongVolatile((slot & CHUNK_MASK) * SLOT_BYTES);
    return ((word >>> GEN_SHIFT) & 0xFFFF) == gen;
  }

  /** {@link #rebuildFreeList(BitSet, long)} where every entry has a counter. */
  public void rebuildFreeList(final BitSet used) {
    rebuildFreeList(used, used.cardinality());
  }

  /**
   * Rebuilds the free list from the counters in use and sets the entries counted against the
   * budget, after recovery. Writer only.
   */
  public void rebuildFreeList(final BitSet used, final long entriesHeld) {
    free.clear();
    for (int s = 0; s < highWater; s++) {
      if (!used.get(s)) {
        free.addInt(s);
      }
    }
    entries = entriesHeld;
  }

  /**
   * Adds one access to {@code slot} if it still belongs to generation {@code gen}. Lock-free; safe
   * from any thread. Returns false when the entry the caller saw has since been removed, or has no
   * counter.
   */
  public boolean incrementIfGeneration(final int slot, final int gen) {
    if (slot < 0) {
      return false;
    }
    final UnsafeBuffer chunk = (UnsafeBuffer) CHUNK.getAcquire(chunks, slot >>> CHUNK_SHIFT);
    final int offset = (slot & CHUNK_MASK) * SLOT_BYTES;
    while (true) {
      final long word = chunk.getLongVolatile(offset);
      if (((word >>> GEN_SHIFT) & 0xFFFF) != gen) {
        return false;
      }
      if ((word & COUNT_MASK) == COUNT_MASK) {
        return true; // saturated
      }
      if (chunk.compareAndSetLong(offset, word, word + 1)) {
        return true;
      }
    }
  }

  /** The access count of {@code slot} (acquire read); 0 for {@link #NO_COUNTER}. */
  public long countAcquire(final int slot) {
    if (slot < 0) {
      return 0;
    }
    final UnsafeBuffer chunk = (UnsafeBuffer) CHUNK.getAcquire(chunks, slot >>> CHUNK_SHIFT);
    return chunk.getLongVolatile((slot & CHUNK_MASK) * SLOT_BYTES) & COUNT_MASK;
  }

  /** Bytes of off-heap memory the counters occupy: the chunks allocated so far. */
  public long bytes() {
    long b = 0;
    for (int k = 0; k < chunkCount; k++) {
      if (buffers[k] != null) {
        b += buffers[k].capacity();
      }
    }
    return b;
  }

  /** Flushes a mapped arena to its file (no-op in memory). */
  public void force() {
    for (int k = 0; k < chunkCount; k++) {
      if (buffers[k] instanceof MappedByteBuffer m) {
        m.force();
      }
    }
  }

  @Override
  public void close() {
    for (int k = 0; k < chunkCount; k++) {
      final ByteBuffer b = buffers[k];
      if (b instanceof MappedByteBuffer m) {
        m.force();
        IoUtil.unmap(m);
      } else if (b != null) {
        BufferUtil.free(b);
      }
      buffers[k] = null;
    }
    if (raf != null) {
      try {
        raf.close();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
