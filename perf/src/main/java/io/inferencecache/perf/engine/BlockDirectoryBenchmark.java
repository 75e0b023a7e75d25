package io.inferencecache.perf.engine;

import io.inferencecache.engine.internal.BlockDirectory;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The block directory ({@link BlockDirectory}) beside Chronicle's floor: what one block's locator
 * costs when it is a slot of the directory instead of a Chronicle entry ({@link
 * ChronicleWriteFloorBenchmark#insertLocator}, {@link ChronicleProbeFloorBenchmark#containsKey}).
 * The directory holds {@code keys} keys of the engine's shape (partition id 4 B + 8 B hash, the
 * keys of {@link SyntheticChains#singleHolder}), each with its index as the value; every operation
 * starts from the key bytes (filled, fingerprinted with XXH3 as the engine would). Sample mode, ns.
 *
 * <ul>
 *   <li>{@code probeHit}: a stored key's candidates walked until the one whose value is the key's
 *       (where the engine would compare the run's row hash);
 *   <li>{@code probeMiss}: a key never stored (an absent block, as for a new block at ingest);
 *   <li>{@code claimAndRelease}: the writer's claim of a new block (absence probe, then insert) and
 *       the release of the oldest block held (the stored ones first; probe, remove), so the fill
 *       stays constant: two directory writes, an upper bound on a claim alone;
 *   <li>{@code keyFillAndFingerprint}: the key filled and fingerprinted only, the share of every
 *       row above that is not the table.
 * </ul>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Benchmark)
public class BlockDirectoryBenchmark {
  private static final int ORDER = 1 << 16;
  private static final int PARTITION = 7;
  private static final int KEY_BYTES = 4 + 8;

  /** Stored keys: {@link ChronicleProbeFloorBenchmark}'s 800k, and IngestBenchmark's 16M. */
  @Param({"800000", "16000000"})
  public int keys;

  private BlockDirectory dir;
  private final BlockDirectory.Probe probe = new BlockDirectory.Probe();
  private final int[] order = new int[ORDER];
  private int next;
  private long claimNext; // the next key claimAndRelease claims (keys of indexes keys.. are new)
  private long releaseNext; // the next claimed key it releases

  private final byte[] key = new byte[KEY_BYTES];

  @Setup(Level.Trial)
  public void setUp() {
    dir = new BlockDirectory(keys);
    for (int c = 0; c < keys; c++) {
      fillKey(c);
      dir.insert(BlockDirectory.fingerprint(key, KEY_BYTES), c);
    }
    final SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < ORDER; i++) {
      order[i] = rnd.nextInt(keys);
    }
    // Claims are keys past the stored ones; releases take the stored keys first, oldest first.
    claimNext = keys;
    releaseNext = 0;
    for (int i = 0; i < 256; i++) {
      if (find(order[i]) < 0) {
        throw new IllegalStateException("directory lost key " + order[i]);
      }
    }
  }

  private void fillKey(final long c) {
    Workload.putEngineKey(key, PARTITION, SyntheticChains.mix64(0x5EEDL + c));
  }

  /** The slot of key {@code c} (its value is {@code (int) c}), or -1. */
  private int find(final long c) {
    fillKey(c);
    final int v = (int) c;
    for (probe.start(dir, BlockDirectory.fingerprint(key, KEY_BYTES)); probe.next(); ) {
      if (probe.value() == v) {
        return probe.slot();
      }
    }
    return -1;
  }

  @Benchmark
  public int probeHit() {
    return find(order[next++ & (ORDER - 1)]);
  }

  @Benchmark
  public int probeMiss() {
    return find(keys + (long) order[next++ & (ORDER - 1)] * 3 + 0x7FFF_FFFFL);
  }

  @Benchmark
  public int claimAndRelease() {
    final long c = claimNext++;
    int slot = find(c);
    if (slot < 0) {
      slot = dir.insert(BlockDirectory.fingerprint(key, KEY_BYTES), (int) c);
    }
    final long old = releaseNext++;
    final int s = find(old);
    if (s >= 0) {
      dir.remove(s);
    }
    return slot;
  }

  @Benchmark
  public int keyFillAndFingerprint() {
    fillKey(order[next++ & (ORDER - 1)]);
    return BlockDirectory.fingerprint(key, KEY_BYTES);
  }
}
