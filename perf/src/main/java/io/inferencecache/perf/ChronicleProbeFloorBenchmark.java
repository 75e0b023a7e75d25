package io.inferencecache.perf;

import io.inferencecache.engine.internal.FloorMaps;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;
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
 * map with the engine's configuration ({@link FloorMaps#engineMap}: same sizing hints, 8 B chunks)
 * holding {@code keys} keys of the engine's shape (partition id 4 B + 8 B hash) with one-block,
 * one-holder runs as values ({@link FloorMaps#unitRun}), looked up in the same random order. Only
 * {@code visitInPlace} runs engine code (its reader and cursor). Sample mode, ns, like the lookup
 * benchmarks.
 *
 * <ul>
 *   <li>{@code visitInPlace}: the engine's read ({@code FloorMaps.InPlaceRead}, i.e. {@code
 *       RunCursor.visit}): {@code getUsing} with the engine's value reader, which parses the run in
 *       place under the segment lock and reads its first cell's slot;
 *   <li>{@code queryContextInPlace}: one read as the engine's {@code RunCursor} does it: the key
 *       filled into a reused buffer, {@code queryContext(BytesStore, 0, len)}, {@code entry()} (the
 *       segment read lock and the hash-lookup search), the value's address wrapped and two fields
 *       read in place, {@code close()};
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
  private static final int PARTITION = 7;
  private static final int KEY_BYTES = 4 + 8;

  /** Stored one-block keys (as {@link SingleHolderLookupBenchmark#keys}). */
  @Param({"800000"})
  public int keys;

  private ChronicleMap<byte[], byte[]> map;
  private FloorMaps.InPlaceRead inPlace;
  private SyntheticChains chains;
  private final int[] order = new int[ORDER];
  private int next;

  private final byte[] key = new byte[KEY_BYTES];
  private final BytesStore<?, byte[]> keyStore = BytesStore.wrap(key);
  private final byte[] value = new byte[FloorMaps.UNIT_RUN_BYTES];
  private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
  private final LongHashFunction hash = LongHashFunction.xx_r39();

  @Setup(Level.Trial)
  public void setUp() {
    chains = SyntheticChains.singleHolder(keys);
    map = FloorMaps.engineMap(keys, 8, 1.0);
    for (int c = 0; c < keys; c++) {
      fillKey(c);
      map.put(key.clone(), FloorMaps.unitRun(c));
    }
    inPlace = new FloorMaps.InPlaceRead(map);
    final SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < ORDER; i++) {
      order[i] = rnd.nextInt(keys);
    }
    for (int i = 0; i < 256; i++) {
      fillKey(order[i]);
      if (!map.containsKey(key)
          || readInPlace() == Long.MIN_VALUE
          || inPlace.slotOf(key, KEY_BYTES) != order[i]) {
        throw new IllegalStateException("floor map lost key " + order[i]);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    map.close();
  }

  private void fillKey(final int c) {
    Workload.putEngineKey(key, PARTITION, chains.blockHash(c, 0));
  }

  private long readInPlace() {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return Long.MIN_VALUE;
      }
      final Data<byte[]> d = e.value();
      view.wrap(d.bytes().addressForRead(d.offset()), (int) d.size());
      return view.getByte(0) + view.getLong(2);
    }
  }

  @Benchmark
  public long visitInPlace() {
    fillKey(order[next++ & (ORDER - 1)]);
    return inPlace.slotOf(key, KEY_BYTES);
  }

  @Benchmark
  public long queryContextInPlace() {
    fillKey(order[next++ & (ORDER - 1)]);
    return readInPlace();
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
    return key[KEY_BYTES - 1];
  }

  @Benchmark
  public long keyHashOnly() {
    fillKey(order[next++ & (ORDER - 1)]);
    return hash.hashBytes(key);
  }
}
