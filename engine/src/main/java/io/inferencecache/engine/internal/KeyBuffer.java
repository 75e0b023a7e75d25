package io.inferencecache.engine.internal;

import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.DirectBuffer;

/**
 * A reusable, single-thread scratch holding one index key ({@link HolderLayout}): the partition id
 * followed by the hash bytes. Filling it copies the hash bytes from wherever the caller holds them
 * (a network buffer view, a byte array) without allocating.
 */
public final class KeyBuffer {
  final byte[] bytes = new byte[HolderLayout.KEY_PARTITION_BYTES + HolderLayout.MAX_HASH_BYTES];
  final BytesStore<?, byte[]> store = BytesStore.wrap(bytes);
  int length;
  // Arrays of exactly one key length each, for Chronicle calls that take the key as a byte[].
  private final byte[][] exact = new byte[bytes.length + 1][];

  /** Sets the key from a byte array slice; returns false if the hash is too long to be stored. */
  public boolean set(final int partition, final byte[] hash, final int offset, final int len) {
    if (len > HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    putPartition(partition);
    System.arraycopy(hash, offset, bytes, HolderLayout.KEY_PARTITION_BYTES, len);
    length = HolderLayout.KEY_PARTITION_BYTES + len;
    return true;
  }

  /** Sets the key from a buffer slice; returns false if the hash is too long to be stored. */
  public boolean set(
      final int partition, final DirectBuffer hash, final int offset, final int len) {
    if (len > HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    putPartition(partition);
    hash.getBytes(offset, bytes, HolderLayout.KEY_PARTITION_BYTES, len);
    length = HolderLayout.KEY_PARTITION_BYTES + len;
    return true;
  }

  /** Sets the key from raw key bytes as stored in the map. */
  public void setRaw(final byte[] key, final int len) {
    System.arraycopy(key, 0, bytes, 0, len);
    length = len;
  }

  /** Writes {@code partition} as the key's first 4 bytes (big-endian); the length is unchanged. */
  void putPartition(final int partition) {
    bytes[0] = (byte) (partition >>> 24);
    bytes[1] = (byte) (partition >>> 16);
    bytes[2] = (byte) (partition >>> 8);
    bytes[3] = (byte) partition;
  }

  /**
   * The key in an array of exactly its length (this buffer's own, one per length, reused: valid
   * until the next call; allocates only the first time a length is met).
   */
  byte[] exact() {
    byte[] e = exact[length];
    if (e == null) {
      e = new byte[length];
      exact[length] = e;
    }
    System.arraycopy(bytes, 0, e, 0, length);
    return e;
  }

  /** A copy of the hash bytes of the key (allocates). */
  public byte[] hashCopy() {
    return java.util.Arrays.copyOfRange(bytes, HolderLayout.KEY_PARTITION_BYTES, length);
  }

  /** Length of the key in bytes. */
  public int length() {
    return length;
  }

  /** Partition id of a raw key. */
  public static int partitionOf(final byte[] key) {
    return ((key[0] & 0xFF) << 24)
        | ((key[1] & 0xFF) << 16)
        | ((key[2] & 0xFF) << 8)
        | (key[3] & 0xFF);
  }
}
