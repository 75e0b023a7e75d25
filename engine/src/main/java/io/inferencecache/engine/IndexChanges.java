package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderBuffer;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StringDictionary;
import java.util.Arrays;

/**
 * What every change of the stored holders entails besides the storage write: the {@link
 * SecondaryCounts}, the holder's LFU slot and the {@link IndexListener} change hooks
 * (engine/docs/design.md §5a). Ingest, events, eviction and the TTL sweep all store and remove
 * holders through here, so each change is counted and reported exactly once.
 *
 * <p><b>Threads.</b> Index writer only. Names and hash copies are materialised only when the
 * listener {@link IndexListener#wantsChanges() wants changes}.
 */
final class IndexChanges {
  private final StringDictionary dict;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexListener listener;
  private final HolderBuffer removed = new HolderBuffer(64);

  IndexChanges(final EngineState state) {
    this.dict = state.dict;
    this.counts = state.counts;
    this.storage = state.storage;
    this.listener = state.config.listener();
  }

  IndexListener listener() {
    return listener;
  }

  /** Counts an upsert's {@link RunStore} outcome (a new key, a new holder or a refresh). */
  void counted(final Partition p, final int outcome, final int replica) {
    if (outcome == RunStore.NEW_KEY) {
      counts.keyAdded(p);
      counts.holderAdded(p, replica);
    } else if (outcome == RunStore.NEW_HOLDER) {
      counts.holderAdded(p, replica);
    }
  }

  /** Uncounts a holder that is no longer stored and frees its LFU slot. */
  void holderGone(final Partition p, final int replica, final int slot, final boolean keyGone) {
    counts.holderRemoved(p, replica);
    storage.arena().release(slot);
    if (keyGone) {
      counts.keyRemoved(p);
    }
  }

  /**
   * Removes holder {@code replica} of {@code key} (of partition {@code p}), counting and reporting
   * it with {@code reason}; true if it was there.
   */
  boolean removeHolder(
      final Partition p,
      final KeyBuffer key,
      final int replica,
      final String reason,
      final long ts) {
    final int r = storage.storeOf(p).removeHolder(key, replica, removed);
    if (r < 0) {
      return false;
    }
    holderGone(p, replica, removed.slot(0), r == 0);
    if (listener.wantsChanges()) {
      reportRemoved(p, key.hashCopy(), replica, reason, ts);
    }
    return true;
  }

  /**
   * Removes every holder of {@code key} (of partition {@code p}), counting and reporting each with
   * {@code reason}; true if the key was there.
   */
  boolean removeKey(final Partition p, final KeyBuffer key, final String reason, final long ts) {
    final int n = storage.storeOf(p).removeKey(key, removed);
    if (n <= 0) {
      return false;
    }
    final boolean report = listener.wantsChanges();
    final byte[] hash = report ? key.hashCopy() : null;
    for (int i = 0; i < n; i++) {
      holderGone(p, removed.replica(i), removed.slot(i), false);
      if (report) {
        reportRemoved(p, hash, removed.replica(i), reason, ts);
      }
    }
    counts.keyRemoved(p);
    return true;
  }

  void reportStored(
      final Partition p, final byte[] hash, final int replica, final int tokens, final long ts) {
    listener.onPrefixStored(
        dict.string(p.tenant()),
        dict.string(p.model()),
        dict.string(replica),
        dict.string(p.scheme()),
        dict.string(p.adapter()),
        hash.clone(),
        tokens,
        ts);
  }

  void reportRemoved(
      final Partition p, final byte[] hash, final int replica, final String reason, final long ts) {
    listener.onPrefixRemoved(
        dict.string(p.tenant()),
        dict.string(p.model()),
        dict.string(replica),
        dict.string(p.scheme()),
        dict.string(p.adapter()),
        hash,
        reason,
        ts);
  }

  /** The hash bytes of a stored key (a copy, without the partition id). */
  static byte[] hashOf(final byte[] key, final int keyLength) {
    return Arrays.copyOfRange(key, HolderLayout.KEY_PARTITION_BYTES, keyLength);
  }
}
