package io.inferencecache.subscriber.index;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.decode.KvEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one replica's incremental, parent-chained block events into positional content
 * fingerprints.
 *
 * <p>The engine reports a new prefix as one {@code BlockStored} (parent = a root we never see) and
 * an extension of a cached prefix as just the new blocks with {@code parent_block_hash} = the last
 * block of the cached part. To keep prefix hashes positional (block i identifies tokens 0..i), the
 * index remembers, per engine block hash, the prefix hash and cumulative token count it derived,
 * and chains the next event from there:
 *
 * <ul>
 *   <li>{@link #stored}: parent known → chain from its prefix hash and token count, else a fresh
 *       root; {@code Fingerprint.prefixHashes(token_ids, block_size, parent)} must yield exactly
 *       one hash per engine block hash, else the event is dropped (counted, and logged when it had
 *       hashes: first occurrence and every 1024th). Emits one {@link PrefixRecord} per block:
 *       8-byte big-endian fingerprint, {@code parent tokens + (i+1) × block_size} (an int32 sum
 *       that wraps, as upstream), the adapter, tier T1.
 *   <li>{@link #removed}: resolves each known engine hash to what was derived for it and forgets
 *       it; unknown hashes are skipped.
 *   <li>{@link #clear}: forgets everything.
 * </ul>
 *
 * <p><b>Memory bound.</b> The index mirrors the engine's resident blocks (every eviction, L2 mode
 * included, removes its entry), so it normally holds at most the engine's KV block count. It is
 * nevertheless capped at {@code maxEntries} ({@value #DEFAULT_MAX_ENTRIES} by default, about 150
 * bytes per entry with an 8-byte engine hash, so ≈ 40 MiB at the cap): past it the oldest stored
 * block is forgotten ({@link #overflowEvictions()} counts them). Forgetting costs only precision —
 * a later child of that block starts a fresh root, and a later eviction of it is not forwarded (the
 * server's TTL ages the entry out).
 *
 * <p>Not thread-safe: owned by one thread (the {@code Reporter}'s).
 */
public final class PositionalIndex {
  /** Default cap on remembered engine blocks. */
  public static final int DEFAULT_MAX_ENTRIES = 1 << 18;

  private static final Logger LOG = LoggerFactory.getLogger(PositionalIndex.class);
  private static final int LOG_EVERY = 1024;

  /** What an evicted engine block resolved to. */
  public record Evicted(byte[] prefixHash, String adapterId, int tokenCount) {}

  private record Entry(long prefixHash, int tokenCount, String adapterId) {}

  /** An engine block hash as a map key. */
  private static final class Key {
    private final byte[] bytes;
    private final int hash;

    Key(final byte[] bytes) {
      this.bytes = bytes;
      this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof Key && Arrays.equals(bytes, ((Key) o).bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private final int maxEntries;
  private final Map<Key, Entry> blocks;
  private long overflowEvictions;
  private long droppedMismatched;

  /** An index capped at {@link #DEFAULT_MAX_ENTRIES}. */
  public PositionalIndex() {
    this(DEFAULT_MAX_ENTRIES);
  }

  /**
   * @param maxEntries cap on remembered engine blocks, positive
   */
  public PositionalIndex(final int maxEntries) {
    if (maxEntries <= 0) {
      throw new IllegalArgumentException("maxEntries must be positive, got " + maxEntries);
    }
    this.maxEntries = maxEntries;
    this.blocks =
        new LinkedHashMap<>(16, 0.75f, false) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(final Map.Entry<Key, Entry> eldest) {
            if (size() > PositionalIndex.this.maxEntries) {
              overflowEvictions++;
              return true;
            }
            return false;
          }
        };
  }

  /**
   * Derives the prefix records of a {@code BlockStored} whose adapter is already resolved, and
   * remembers its blocks.
   *
   * @param adapterId the resolved adapter partition ({@code ""} = base model)
   * @return one T1 record per block, in block order; empty when the event is dropped or carries no
   *     block
   */
  public List<PrefixRecord> stored(final KvEvent.BlockStored event, final String adapterId) {
    final List<byte[]> engineHashes = event.blockHashes();
    final int blockSize = event.blockSize();
    if (blockSize <= 0 || engineHashes.isEmpty()) {
      return List.of();
    }
    long parentPrefix = 0L;
    int parentTokens = 0;
    boolean hasParent = false;
    if (event.parentBlockHash() != null) {
      final Entry parent = blocks.get(new Key(event.parentBlockHash()));
      if (parent != null) {
        parentPrefix = parent.prefixHash();
        parentTokens = parent.tokenCount();
        hasParent = true;
      }
    }
    final int[] tokens = event.tokenIds();
    final long[] prefixes =
        Fingerprint.prefixHashes(tokens, 0, tokens.length, blockSize, hasParent, parentPrefix);
    if (prefixes.length != engineHashes.size()) {
      droppedMismatched++;
      if (droppedMismatched == 1 || droppedMismatched % LOG_EVERY == 0) {
        LOG.warn(
            "BlockStored produced no index entries (missing or mismatched token_ids):"
                + " block_hashes={} token_ids={} block_size={} dropped_total={}",
            engineHashes.size(),
            tokens.length,
            blockSize,
            droppedMismatched);
      }
      return List.of();
    }
    final List<PrefixRecord> out = new ArrayList<>(prefixes.length);
    int tokenCount = parentTokens;
    for (int i = 0; i < prefixes.length; i++) {
      tokenCount += blockSize;
      out.add(
          new PrefixRecord(
              Fingerprint.toWire(prefixes[i]), tokenCount, adapterId, PrefixRecord.TIER_T1));
      blocks.put(new Key(engineHashes.get(i)), new Entry(prefixes[i], tokenCount, adapterId));
    }
    return out;
  }

  /**
   * Resolves and forgets the evicted engine blocks.
   *
   * @return what each known block resolved to, in event order; unknown hashes are skipped
   */
  public List<Evicted> removed(final KvEvent.BlockRemoved event) {
    final List<byte[]> engineHashes = event.blockHashes();
    if (engineHashes.isEmpty()) {
      return List.of();
    }
    final List<Evicted> out = new ArrayList<>(engineHashes.size());
    for (final byte[] engineHash : engineHashes) {
      final Entry entry = blocks.remove(new Key(engineHash));
      if (entry != null) {
        out.add(
            new Evicted(
                Fingerprint.toWire(entry.prefixHash()), entry.adapterId(), entry.tokenCount()));
      }
    }
    return out;
  }

  /**
   * What the index currently mirrors: one T1 record per remembered engine block (its prefix hash,
   * cumulative token count and adapter), oldest first. Allocates a fresh list. Used to re-send the
   * replica's whole state after the server lost some of it.
   */
  public List<PrefixRecord> entries() {
    final List<PrefixRecord> out = new ArrayList<>(blocks.size());
    for (final Entry e : blocks.values()) {
      out.add(
          new PrefixRecord(
              Fingerprint.toWire(e.prefixHash()),
              e.tokenCount(),
              e.adapterId(),
              PrefixRecord.TIER_T1));
    }
    return out;
  }

  /** Forgets every block. */
  public void clear() {
    blocks.clear();
  }

  /** Number of remembered engine blocks. */
  public int size() {
    return blocks.size();
  }

  /** The cap on remembered engine blocks. */
  public int maxEntries() {
    return maxEntries;
  }

  /** Blocks forgotten because the cap was reached. */
  public long overflowEvictions() {
    return overflowEvictions;
  }

  /** {@code BlockStored} events dropped because their token ids did not match their hashes. */
  public long droppedMismatched() {
    return droppedMismatched;
  }
}
