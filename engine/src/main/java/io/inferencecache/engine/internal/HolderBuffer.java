package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.HolderLayout.GEN_OFFSET;
import static io.inferencecache.engine.internal.HolderLayout.LAST_SEEN_OFFSET;
import static io.inferencecache.engine.internal.HolderLayout.RECORD_BYTES;
import static io.inferencecache.engine.internal.HolderLayout.REPLICA_OFFSET;
import static io.inferencecache.engine.internal.HolderLayout.SLOT_OFFSET;
import static io.inferencecache.engine.internal.HolderLayout.TIER_OFFSET;
import static io.inferencecache.engine.internal.HolderLayout.TOKENS_OFFSET;

import java.nio.ByteOrder;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A single-thread scratch copy of one key's holder records ({@link HolderLayout}), with typed
 * accessors. Grows when a key has more holders than it has room for; otherwise never allocates.
 */
public final class HolderBuffer {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  byte[] bytes;
  BytesStore<?, byte[]> store;
  final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
  int count;

  public HolderBuffer() {
    this(16);
  }

  public HolderBuffer(final int initialHolders) {
    bytes = new byte[initialHolders * RECORD_BYTES];
    store = BytesStore.wrap(bytes);
    view.wrap(bytes);
  }

  void ensureBytes(final int n) {
    if (bytes.length < n) {
      bytes = java.util.Arrays.copyOf(bytes, Math.max(n, bytes.length * 2));
      store = BytesStore.wrap(bytes);
      view.wrap(bytes);
    }
  }

  /** Number of holders. */
  public int count() {
    return count;
  }

  public long lastSeen(final int i) {
    return view.getLong(i * RECORD_BYTES + LAST_SEEN_OFFSET, ORDER);
  }

  public int tokens(final int i) {
    return view.getInt(i * RECORD_BYTES + TOKENS_OFFSET, ORDER);
  }

  public int replica(final int i) {
    return view.getInt(i * RECORD_BYTES + REPLICA_OFFSET, ORDER);
  }

  public int slot(final int i) {
    return view.getInt(i * RECORD_BYTES + SLOT_OFFSET, ORDER);
  }

  public int gen(final int i) {
    return view.getShort(i * RECORD_BYTES + GEN_OFFSET, ORDER) & 0xFFFF;
  }

  public int tier(final int i) {
    return view.getByte(i * RECORD_BYTES + TIER_OFFSET) & 0xFF;
  }

  void put(
      final int i,
      final long lastSeen,
      final int tokens,
      final int replica,
      final int slot,
      final int gen,
      final int tier) {
    final int base = i * RECORD_BYTES;
    view.putLong(base + LAST_SEEN_OFFSET, lastSeen, ORDER);
    view.putInt(base + TOKENS_OFFSET, tokens, ORDER);
    view.putInt(base + REPLICA_OFFSET, replica, ORDER);
    view.putInt(base + SLOT_OFFSET, slot, ORDER);
    view.putShort(base + GEN_OFFSET, (short) gen, ORDER);
    view.putByte(base + TIER_OFFSET, (byte) tier);
    view.putByte(base + TIER_OFFSET + 1, (byte) 0);
  }

  /** Copies record {@code from} of {@code src} into slot {@code to} of this buffer. */
  void copyRecord(final HolderBuffer src, final int from, final int to) {
    System.arraycopy(src.bytes, from * RECORD_BYTES, bytes, to * RECORD_BYTES, RECORD_BYTES);
  }

  /** Copies record {@code i} of {@code from} into record {@code j} of {@code to}, growing it. */
  public static void copyRecord(
      final HolderBuffer from, final int i, final HolderBuffer to, final int j) {
    to.ensureBytes((j + 1) * RECORD_BYTES);
    System.arraycopy(from.bytes, i * RECORD_BYTES, to.bytes, j * RECORD_BYTES, RECORD_BYTES);
    if (to.count < j + 1) {
      to.count = j + 1;
    }
  }

  /** Sets the number of records of {@code b}. */
  public static void setCount(final HolderBuffer b, final int n) {
    b.count = n;
  }

  /** Index of {@code replica} among the (sorted) holders, or {@code -(insertion point) - 1}. */
  public int find(final int replica) {
    int lo = 0;
    int hi = count - 1;
    while (lo <= hi) {
      final int mid = (lo + hi) >>> 1;
      final int r = replica(mid);
      if (r < replica) {
        lo = mid + 1;
      } else if (r > replica) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }
}
