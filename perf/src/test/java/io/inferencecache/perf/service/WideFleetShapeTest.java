package io.inferencecache.perf.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The arithmetic and shape building of {@link WideFleetLoopback} (no server, no timing). */
class WideFleetShapeTest {

  @Test
  void chainsAreTheEntriesOverSixtyFourTimesTheHoldersRoundedDown() {
    final long entries = 983_040;
    assertThat(WideFleetShape.of(16, 512, entries).chains()).isEqualTo(960);
    assertThat(WideFleetShape.of(128, 512, entries).chains()).isEqualTo(120);
    assertThat(WideFleetShape.of(192, 512, entries).chains()).isEqualTo(80);
    assertThat(WideFleetShape.of(256, 512, entries).chains()).isEqualTo(60);
    assertThat(WideFleetShape.of(255, 512, entries).chains()).isEqualTo(60);
    assertThat(WideFleetShape.of(300, 512, entries).chains()).isEqualTo(51);
    assertThat(WideFleetShape.of(1, 512, entries).chains()).isEqualTo(15_360);
    assertThat(WideFleetShape.of(256, 512, entries).holderBlocks()).isEqualTo(983_040);
    assertThat(WideFleetShape.of(300, 512, entries).holderBlocks()).isEqualTo(979_200);
    assertThat(WideFleetShape.of(255, 512, entries).holderBlocks()).isEqualTo(979_200);
    assertThat(WideFleetShape.of(300, 512, 10).chains()).isEqualTo(1);
  }

  @Test
  void perHolderBlockDividesByTheHolderBlocksOfOneLookup() {
    final WideFleetShape s = WideFleetShape.of(256, 512, 983_040);
    assertThat(s.holderBlocksPerLookup()).isEqualTo(16_384);
    assertThat(s.perHolderBlockNanos(265_000)).isCloseTo(16.17, within(0.01));
    assertThat(WideFleetShape.of(128, 512, 983_040).perHolderBlockNanos(34_100))
        .isCloseTo(4.16, within(0.01));
  }

  @Test
  void moreHoldersThanReplicasIsRefused() {
    assertThatThrownBy(() -> WideFleetShape.of(513, 512, 983_040))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holders <= replicas");
  }

  @Test
  void oddRoundsRunTheShapesInReverse() {
    final List<Integer> h = List.of(1, 16, 256);
    assertThat(WideFleetShape.roundOrder(h, 0)).containsExactly(1, 16, 256);
    assertThat(WideFleetShape.roundOrder(h, 1)).containsExactly(256, 16, 1);
    assertThat(WideFleetShape.roundOrder(h, 2)).containsExactly(1, 16, 256);
  }

  @Test
  void reportsCarryEveryHolderOfEveryChainOnce() throws Exception {
    final WideFleetShape shape = WideFleetShape.of(5, 12, 64 * 5 * 3);
    final SyntheticChains w = shape.workload();
    final byte[][] reports = WideFleetClient.reports(w);
    assertThat(reports.length).isEqualTo((int) shape.reports());
    final Set<String> seen = new HashSet<>();
    long blocks = 0;
    for (byte[] r : reports) {
      final CacheStateUpdate u = CacheStateUpdate.parseFrom(r);
      assertThat(u.getPrefixesCount()).isEqualTo(1);
      blocks += u.getPrefixes(0).getBlockHashesCount();
      seen.add(u.getReplicaId() + "/" + u.getPrefixes(0).getBlockHashes(0).toStringUtf8());
    }
    assertThat(blocks).isEqualTo(shape.holderBlocks());
    assertThat(seen).hasSize(reports.length);
  }

  @Test
  void histogramSumAndCountAddTheMatchingSeries() {
    final String text =
        """
        # TYPE inferencecache_lookup_route_latency_seconds histogram
        inferencecache_lookup_route_latency_seconds_bucket{model="m",le="0.0001"} 3.0
        inferencecache_lookup_route_latency_seconds_count{model="m"} 10.0
        inferencecache_lookup_route_latency_seconds_sum{model="m"} 0.0025
        inferencecache_lookup_route_latency_seconds_count{model="other"} 5.0
        inferencecache_lookup_route_latency_seconds_sum{model="other"} 1.0
        inferencecache_lookup_route_latency_seconds_sum_total{model="m"} 99.0
        """;
    final double[] m =
        WideFleetShape.histogramSumCount(
            text, "inferencecache_lookup_route_latency_seconds", "model=\"m\"");
    assertThat(m[0]).isCloseTo(0.0025, within(1e-12));
    assertThat(m[1]).isEqualTo(10.0);
    final double[] all =
        WideFleetShape.histogramSumCount(text, "inferencecache_lookup_route_latency_seconds", "");
    assertThat(all[1]).isEqualTo(15.0);
    assertThat(WideFleetShape.histogramSumCount("", "x", "")).containsExactly(0.0, 0.0);
  }

  @Test
  void medianAndRange() {
    assertThat(WideFleetShape.median(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(WideFleetShape.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(WideFleetShape.median(new double[0])).isNaN();
    assertThat(WideFleetShape.range(new double[] {3, 1, 2})).containsExactly(1.0, 3.0);
  }

  @Test
  void summaryPairsTheRoundsForTheRatios() {
    final List<Map<String, Object>> rows = new ArrayList<>();
    rows.add(row(0, 128, 4.0, 600_000));
    rows.add(row(0, 256, 6.0, 300_000));
    rows.add(row(1, 256, 4.0, 200_000));
    rows.add(row(1, 128, 2.0, 400_000));
    rows.add(row(0, 1, Double.NaN, 1_000_000));
    rows.add(row(1, 1, Double.NaN, 500_000));
    final Map<String, Object> s =
        WideFleetSummary.summarize(rows, List.of(1, 128, 256), 256, List.of(1));
    @SuppressWarnings("unchecked")
    final Map<String, Object> ratio = (Map<String, Object>) s.get("perHolderBlock256Vs128");
    assertThat(ratio.get("min")).isEqualTo(1.5);
    assertThat(ratio.get("max")).isEqualTo(2.0);
    assertThat(ratio.get("median")).isEqualTo(1.75);
    @SuppressWarnings("unchecked")
    final Map<String, Object> ingest =
        (Map<String, Object>) ((Map<String, Object>) s.get("ingest")).get("wide256VsNarrow1");
    assertThat(ingest.get("median")).isEqualTo(0.35);
    assertThat(WideFleetSummary.markdown(s, Map.of())).contains("| 256 |");
  }

  @Test
  void theCommandLineHasTheIssuesDefaults() {
    final WideFleetLoopback w = new WideFleetLoopback();
    new CommandLine(w).parseArgs();
    assertThat(w.holders).containsExactly(16, 64, 128, 192, 255, 256, 300);
    assertThat(w.narrow).containsExactly(1, 4);
    assertThat(w.replicas).isEqualTo(512);
    assertThat(w.entries).isEqualTo(983_040);
    assertThat(w.cap).isEqualTo(8);
    assertThat(w.yaml()).contains("maxEntries: 1000000").contains("averageHoldersPerKey: 1.0");
  }

  private static Map<String, Object> row(
      final int round, final int holders, final double perHb, final long ingest) {
    final Map<String, Object> r = new LinkedHashMap<>();
    r.put("round", round);
    r.put("holders", holders);
    r.put("chains", 1);
    r.put("holderBlocks", 64L * holders);
    if (!Double.isNaN(perHb)) {
      r.put("perHolderBlockNs", perHb);
    }
    r.put("ingestEntriesPerSecond", ingest);
    return r;
  }

  private static org.assertj.core.data.Offset<Double> within(final double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
