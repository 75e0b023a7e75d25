package io.inferencecache.perf;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.map.ChronicleMap;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Chronicle Map's own floor under the 1-block hit of {@link SingleHolderLookupBenchmark}: a bare
 * map sized as the engine's ({@link BareChronicleMap#engineSized}) holding {@code keys} keys of the
 * engine's shape (partition id 4 B + 8 B hash) with one-block, one-holder run values, looked up in
 * the same random order. No engine code runs. Sample mode, ns, like the lookup benchmarks.
 *
 * <ul>
 *   <li>{@code queryContextInPlace}: one probe as the engine's lookup makes it ({@link
 *       BareChronicleMap#probeInPlace}): the key filled into a reused buffer, {@code
 *       queryContext(BytesStore, 0, len)}, {@code entry()} (the segment read lock and the
 *       hash-lookup search), the value's address wrapped and two fields read in place;
 *   <li>{@code getUsing}: {@code getUsing(key, reusedValue)}, the value copied into a reused array;
 *   <li>{@code containsKey}: the cheapest read Chronicle offers (no value access);
 *   <li>{@code keyHashOnly}: the 64-bit xxHash (r39) Chronicle computes for each key, alone;
 *   <li>{@code keyFillOnly}: filling the key from the chain's hash: the harness' and the key's own
 *       share of every row above.
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
public class ChronicleProbeFloorBenchmark {
  private static final int ORDER = 1 << 16;

  /** Stored one-block keys (as {@link SingleHolderLookupBenchmark#keys}). */
  @Param({"800000"})
  public int keys;

  private BareChronicleMap bare;
  private ChronicleMap<byte[], byte[]> map;
  private byte[] key;
  private SyntheticChains chains;
  private final int[] order = new int[ORDER];
  private int next;

  private final byte[] value = new byte[BareChronicleMap.UNIT_RUN_BYTES];
  private final LongHashFunction hash = LongHashFunction.xx_r39();

  @Setup(Level.Trial)
  public void setUp() {
    chains = SyntheticChains.singleHolder(keys);
    bare = new BareChronicleMap(BareChronicleMap.UNIT_RUN_BYTES);
    bare.use(BareChronicleMap.engineSized(keys, 8, 1.0));
    map = bare.map();
    key = bare.key;
    for (int c = 0; c < keys; c++) {
      fillKey(c);
      for (int i = 0; i < 4; i++) {
        bare.unitRun[2 + i] = (byte) (c >>> (8 * i)); // a marker: values differ
      }
      bare.insert(bare.unitRunStore, BareChronicleMap.UNIT_RUN_BYTES);
    }
    final SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < ORDER; i++) {
      order[i] = rnd.nextInt(keys);
    }
    for (int i = 0; i < 256; i++) {
      fillKey(order[i]);
      if (!map.containsKey(key) || bare.probeInPlace() == Long.MIN_VALUE) {
        throw new IllegalStateException("floor map lost key " + order[i]);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    bare.close();
  }

  private void fillKey(final int c) {
    bare.fillKeyOfHash(chains.blockHash(c, 0));
  }

  @Benchmark
  public long queryContextInPlace() {
    fillKey(order[next++ & (ORDER - 1)]);
    return bare.probeInPlace();
  }

  @Benchmark
  public byte[] getUsing() {
    fillKey(order[next++ & (ORDER - 1)]);
    return map.getUsing(key, value);
  }

  @Benchmark
  public boolean containsKey() {
    fillKey(order[next++ & (ORDER - 1)]);
    return map.containsKey(key);
  }

  @Benchmark
  public byte keyFillOnly() {
    fillKey(order[next++ & (ORDER - 1)]);
    return key[BareChronicleMap.KEY_BYTES - 1];
  }

  @Benchmark
  public long keyHashOnly() {
    fillKey(order[next++ & (ORDER - 1)]);
    return hash.hashBytes(key);
  }
}
