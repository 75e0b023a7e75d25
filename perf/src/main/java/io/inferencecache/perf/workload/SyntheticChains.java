package io.inferencecache.perf.workload;

import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Synthetic block-hash chains: {@code chains} disjoint chains of {@code blocks} blocks, each chain
 * held in full by {@code holders} distinct replicas (picked per chain, pseudo-randomly and
 * reproducibly, out of {@code replicas}), {@code tokensPerBlock} tokens a block. Block {@code b} of
 * chain {@code c} hashes to {@code mix64(SEED + c * blocks + b)}, 8 bytes big-endian: a bijection,
 * so every block key is distinct.
 */
public final class SyntheticChains implements Workload {
  /** Full pinned shape: 12,500 chains × 64 blocks × 16 holders = 12.8M holder-blocks. */
  public static final int PINNED_CHAINS = 12_500;

  public static final int PINNED_BLOCKS = 64;
  public static final int PINNED_REPLICAS = 256;
  public static final int PINNED_HOLDERS = 16;
  public static final int PINNED_TOKENS_PER_BLOCK = 16;

  public static final int LONG_BLOCKS = 1024;
  public static final int LONG_REPLICAS = 32;
  public static final int LONG_HOLDERS = 4;

  private static final long SEED = 0x1CE_CAC4EL;

  private final String name;
  private final int chains;
  private final int blocks;
  private final int replicas;
  private final int holders;
  private final int tokensPerBlock;
  private final String[] replicaNames;

  public SyntheticChains(
      final String name,
      final int chains,
      final int blocks,
      final int replicas,
      final int holders,
      final int tokensPerBlock) {
    if (chains < 1 || blocks < 1 || holders < 1 || holders > replicas) {
      throw new IllegalArgumentException(
          "need chains, blocks >= 1 and 1 <= holders <= replicas: "
              + chains
              + ", "
              + blocks
              + ", "
              + holders
              + ", "
              + replicas);
    }
    this.name = name;
    this.chains = chains;
    this.blocks = blocks;
    this.replicas = replicas;
    this.holders = holders;
    this.tokensPerBlock = tokensPerBlock;
    this.replicaNames = new String[replicas];
    for (int r = 0; r < replicas; r++) {
      replicaNames[r] = String.format("replica-%03d", r);
    }
  }

  /**
   * The pinned shape scaled to {@code chains} chains (12,500 is full size: 800k keys × 16 holders).
   */
  public static SyntheticChains pinned(final int chains) {
    return new SyntheticChains(
        "pinned", chains, PINNED_BLOCKS, PINNED_REPLICAS, PINNED_HOLDERS, PINNED_TOKENS_PER_BLOCK);
  }

  /** Chains of 1,024 blocks, 4 holders of 32 replicas each. */
  public static SyntheticChains longChains(final int chains) {
    return new SyntheticChains(
        "long", chains, LONG_BLOCKS, LONG_REPLICAS, LONG_HOLDERS, PINNED_TOKENS_PER_BLOCK);
  }

  /** {@code keys} one-block chains, each held by one of 256 replicas. */
  public static SyntheticChains singleHolder(final int keys) {
    return new SyntheticChains("single", keys, 1, PINNED_REPLICAS, 1, PINNED_TOKENS_PER_BLOCK);
  }

  @Override
  public String name() {
    return name;
  }

  public int chains() {
    return chains;
  }

  public int blocks() {
    return blocks;
  }

  public int holders() {
    return holders;
  }

  @Override
  public long holderBlocks() {
    return (long) chains * blocks * holders;
  }

  @Override
  public long distinctKeys() {
    return (long) chains * blocks;
  }

  /** The hash value of block {@code b} of chain {@code c}. */
  public long blockHash(final int c, final int b) {
    return mix64(SEED + (long) c * blocks + b);
  }

  /** The replicas (indexes into the names) that hold chain {@code c}, ascending. */
  public int[] holdersOf(final int c) {
    final int[] all = new int[replicas];
    for (int i = 0; i < replicas; i++) {
      all[i] = i;
    }
    final SplittableRandom rnd = new SplittableRandom(mix64(SEED ^ ((long) c << 20)));
    for (int i = 0; i < holders; i++) {
      final int j = i + rnd.nextInt(replicas - i);
      final int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    final int[] out = Arrays.copyOf(all, holders);
    Arrays.sort(out);
    return out;
  }

  public String replicaName(final int r) {
    return replicaNames[r];
  }

  /** The update reporting chain {@code c} as stored on replica {@code replica}. */
  public IngestUpdate update(final int c, final int replica) {
    return update(c, replica, hashesOf(c), countsOf());
  }

  private IngestUpdate update(
      final int c, final int replica, final List<byte[]> hashes, final int[] counts) {
    return Workload.chainUpdate(replicaNames[replica], hashes, counts);
  }

  /** The block hashes of chain {@code c}. */
  public List<byte[]> hashesOf(final int c) {
    final List<byte[]> hashes = new ArrayList<>(blocks);
    for (int b = 0; b < blocks; b++) {
      hashes.add(Workload.hashOf(blockHash(c, b)));
    }
    return hashes;
  }

  /** Every block's token count. */
  public int[] countsOf() {
    final int[] counts = new int[blocks];
    Arrays.fill(counts, tokensPerBlock);
    return counts;
  }

  @Override
  public void forEachUpdate(final Consumer<IngestUpdate> sink) {
    final int[] counts = countsOf();
    for (int c = 0; c < chains; c++) {
      final List<byte[]> hashes = hashesOf(c);
      for (int r : holdersOf(c)) {
        sink.accept(update(c, r, hashes, counts));
      }
    }
  }

  @Override
  public int lookups() {
    return chains;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Copies from every chain's hash bytes laid out flat (built on first use, {@code chains ×
   * blocks × 8} bytes), so filling is a plain copy, as from a request buffer. Allocation-free after
   * the first call.
   */
  @Override
  public void fillLookup(final int i, final LookupRequest q) {
    byte[] f = flat;
    if (f == null) {
      f = flatHashes();
      flat = f;
    }
    q.reset().keys(TENANT, MODEL, SCHEME, "");
    final int n = blocks;
    final int tokens = tokensPerBlock;
    int at = i * n * 8;
    for (int b = 0; b < n; b++, at += 8) {
      q.addBlockHash(f, at, 8).addBlockTokenCount(tokens);
    }
  }

  private byte[] flat;

  private byte[] flatHashes() {
    final long size = (long) chains * blocks * 8;
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("too many blocks to look up: " + size / 8);
    }
    final byte[] f = new byte[(int) size];
    final byte[] h = new byte[8];
    for (int c = 0; c < chains; c++) {
      for (int b = 0; b < blocks; b++) {
        Workload.putLongBe(h, blockHash(c, b));
        System.arraycopy(h, 0, f, (c * blocks + b) * 8, 8);
      }
    }
    return f;
  }

  /** The splitmix64 finalizer: a bijection on 64-bit values. */
  public static long mix64(final long v) {
    long z = v;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
