package io.inferencecache.perf.gate;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.perf.BareChronicleMap;
import io.inferencecache.perf.SyntheticChains;
import io.inferencecache.perf.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The perf gate's new-key ingest figure ({@link PerfGate#INGEST_NEW}): CPU nanoseconds per new
 * 64-block chain the engine ingests ÷ per bare Chronicle put such an ingest must make, in
 * interleaved rounds (the engine first in even rounds). A round ingests {@value #CHAINS_PER_ROUND}
 * fresh chains into the engine and puts each chain's 64-row, one-holder run under its new head key
 * into a bare map sized alike ({@link BareChronicleMap}; the engine's map holds one entry a run,
 * its heap block directory the other keys; timed), checks that both then hold every chain, and
 * removes them again (the engine by {@code PREFIX_EVICTED} events, the map by key; not timed), so
 * later rounds insert into memory earlier ones touched, as in a server whose map has filled once.
 * Both have the default capacity of one million holder-blocks at one holder a key: the new keys
 * land all over a Chronicle map of about 60 MB and, for the engine, a block directory of about 11
 * MB.
 */
final class NewKeyIngest implements AutoCloseable {
  static final int CHAINS_PER_ROUND = 32;
  static final int BLOCKS = 64;
  static final int REPLICAS = 16;

  /**
   * Warm-up: at least this much CPU time (both indexes together) besides the settings' warm-up
   * rounds; with 2 s the engine's first medians still came out 20-40 % above its settled ones.
   */
  static final long WARMUP_CPU_NANOS = 4_000_000_000L;

  private final CacheIndex index;
  private final BareChronicleMap floor;
  private final int chainRunBytes = BareChronicleMap.runBytes(BLOCKS, 1, 1);
  private final Consumer<IngestUpdate> engineIngest;
  private final Consumer<IndexEvent> engineEvent;
  private final long[] roundChains = new long[CHAINS_PER_ROUND];
  private final String[] replicas = new String[REPLICAS];
  private final int[] counts = new int[BLOCKS];
  private final IngestUpdate[] round = new IngestUpdate[CHAINS_PER_ROUND];
  private final List<IndexEvent> evictions = new ArrayList<>(CHAINS_PER_ROUND * BLOCKS);
  private long nextChain;

  NewKeyIngest() {
    final IndexConfig config = new IndexConfig().averageHashBytes(8).averageHoldersPerKey(1.0);
    index = CacheIndex.open(config);
    floor = new BareChronicleMap(chainRunBytes);
    floor.use(BareChronicleMap.engineSized(config.maxEntries(), 8, 1.0));
    engineIngest = index::ingest;
    engineEvent = index::applyEvent;
    for (int r = 0; r < REPLICAS; r++) {
      replicas[r] = "replica-" + r;
    }
    Arrays.fill(counts, 16);
  }

  /** The median ratio and the medians of its parts, over {@code s.rounds} measured rounds. */
  record Result(double ratio, double spread, double engineNsPerBlock, double floorNsPerBlock) {}

  Result measure(final PerfGate.Settings s) {
    final long warmStart = PerfGate.cpuNanos();
    for (int w = 0; w < s.warmupRounds || PerfGate.cpuNanos() - warmStart < WARMUP_CPU_NANOS; w++) {
      oneRound(w % 2 == 0);
    }
    final double[] ratio = new double[s.rounds];
    final double[] engineNs = new double[s.rounds];
    final double[] floorNs = new double[s.rounds];
    for (int r = 0; r < s.rounds; r++) {
      final long[] t = oneRound(r % 2 == 0);
      engineNs[r] = t[0] / (double) (CHAINS_PER_ROUND * BLOCKS);
      floorNs[r] = t[1] / (double) (CHAINS_PER_ROUND * BLOCKS);
      ratio[r] = engineNs[r] / floorNs[r];
    }
    return new Result(
        PerfGate.median(ratio),
        PerfGate.spread(ratio),
        PerfGate.median(engineNs),
        PerfGate.median(floorNs));
  }

  /** One round: {engine ns, bare-map ns} for storing this round's fresh chains. */
  private long[] oneRound(final boolean engineFirst) {
    prepareRound();
    final long[] t = new long[2];
    if (engineFirst) {
      t[0] = ingest();
      t[1] = insertBare();
    } else {
      t[1] = insertBare();
      t[0] = ingest();
    }
    final long blocks = (long) CHAINS_PER_ROUND * BLOCKS;
    if (index.totalEntries() != blocks || floor.map().longSize() != CHAINS_PER_ROUND) {
      throw new IllegalStateException(
          "new-key round stored "
              + index.totalEntries()
              + " blocks (bare map: "
              + floor.map().longSize()
              + " runs), not "
              + blocks);
    }
    evictions.forEach(engineEvent);
    for (long c : roundChains) {
      floor.fillKey(c * BLOCKS);
      floor.removeKey();
    }
    if (index.totalEntries() != 0 || floor.map().longSize() != 0) {
      throw new IllegalStateException(
          "new-key round left "
              + index.totalEntries()
              + " blocks (bare map: "
              + floor.map().longSize()
              + " runs) after its evictions");
    }
    return t;
  }

  /** Builds this round's updates (fresh chains, never repeated) and their evictions; not timed. */
  private void prepareRound() {
    evictions.clear();
    for (int i = 0; i < CHAINS_PER_ROUND; i++) {
      final long c = nextChain++;
      roundChains[i] = c;
      final String replica = replicas[(int) (c % REPLICAS)];
      final List<byte[]> hashes = new ArrayList<>(BLOCKS);
      for (int b = 0; b < BLOCKS; b++) {
        final byte[] h = new byte[8];
        Workload.putLongBe(h, SyntheticChains.mix64(~(c * BLOCKS + b)));
        hashes.add(h);
        evictions.add(
            new IndexEvent(
                IndexEvent.Type.PREFIX_EVICTED,
                replica,
                Workload.MODEL,
                Workload.TENANT,
                h,
                0,
                ""));
      }
      round[i] = Workload.chainUpdate(replica, hashes, counts);
    }
  }

  private long ingest() {
    final long t0 = PerfGate.cpuNanos();
    for (IngestUpdate u : round) {
      engineIngest.accept(u);
    }
    return PerfGate.cpuNanos() - t0;
  }

  /** The bare puts of this round's chains: each chain's run under its (new) head key. */
  private long insertBare() {
    final long t0 = PerfGate.cpuNanos();
    for (long c : roundChains) {
      floor.fillKey(c * BLOCKS);
      if (!floor.insertRun(chainRunBytes)) {
        throw new IllegalStateException("chain " + c + " is not new to the bare map");
      }
    }
    return PerfGate.cpuNanos() - t0;
  }

  /** The figure's detail line. */
  static String detail(final Result r, final int rounds) {
    return String.format(
        Locale.ROOT,
        "median of %d rounds, spread %.2fx; new-key ingest %.0f ns a block, the bare put of"
            + " each chain's run %.1f ns a block (CPU); %d fresh 64-block chains a round, default"
            + " capacity, removed between rounds",
        rounds,
        r.spread(),
        r.engineNsPerBlock(),
        r.floorNsPerBlock(),
        CHAINS_PER_ROUND);
  }

  @Override
  public void close() {
    index.close();
    floor.close();
  }
}
