package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small P/D run in the build, on both traces at 70 % and 90 % load: the engine's PdRouter (fed
 * only the simulated replicas' reports and stats) never gives a worse TTFT p90 than P/D-blind
 * routing (LookupRoute's prefill hint, decode in turn), and its transfer term keeps more KV moves
 * on the same node. Both held in every cell of a sweep over stats intervals, seeds, slots, cache
 * sizes and link speeds (notes/issue-39-sim.md). Also: the outputs are written.
 */
@Timeout(300)
class PdSimulatorTest {
  @Test
  void thePdRouterIsNeverSlowerThanPdBlindRoutingAndMovesKvCloser(@TempDir final Path dir)
      throws Exception {
    final PdOptions o =
        PdOptions.parse(
            new String[] {
              "--requests", "1500",
              "--loads", "0.7,0.9",
              "--policies", "pd-router,pd-blind",
              "--quiet"
            });
    final List<PdSimulator.Row> rows = PdSimulator.run(o, false);
    assertThat(rows).hasSize(2 * 2);
    for (PdSimulator.Row row : rows) {
      final PdResult ours = row.results().get(0);
      final PdResult blind = row.results().get(1);
      final String cell = row.trace() + " at " + row.load();
      assertThat(ours.policy()).isEqualTo(PdPolicy.PD_ROUTER);
      assertThat(ours.ttftP90Ms()).as(cell).isLessThanOrEqualTo(blind.ttftP90Ms());
      assertThat(sameNodeShare(ours)).as(cell).isGreaterThan(sameNodeShare(blind));
      assertThat(ours.reasons()).containsKey("PD_PAIR");
      assertThat(blind.decodeLocalFraction()).isZero();
    }
    final Path json = dir.resolve("pd.json");
    PdSimulator.writeJson(o, rows, json);
    assertThat(Files.readString(json)).contains("\"policy\" : \"pd-router\"", "ttftMeanPartsMs");
    assertThat(PdPlot.svg(rows)).startsWith("<svg").contains("pd-blind").endsWith("</svg>\n");
    assertThat(PdSimulator.markdown(o, rows)).contains("| synthetic | 90 % | pd-router |");
  }

  private static double sameNodeShare(final PdResult r) {
    final long[] l = r.linkTransfers();
    return (double) l[0] / Math.max(1, l[0] + l[1] + l[2]);
  }
}
