package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The safety property of the cost-model strategy on a small grid (both traces, 4k-block caches,
 * stats every 250 ms and every 2 s, 70 % and 90 % load): following its hint never gives a worse
 * TTFT p90 than load-blind least-loaded balancing on exact state, i.e. it does not hot-spot the
 * fleet. Also: the exact-state peers run once per load and are shared by every stats interval; no
 * policy goes below the trace's TTFT p90 bound and each run's p90 breakdown stays within its p90;
 * the grid's outputs are written.
 */
@Timeout(120)
class FleetGridTest {
  static final String[] SMALL = {
    "--capacities", "4096",
    "--stats-intervals", "0.25,2",
    "--loads", "0.7,0.9",
    "--requests", "2000",
    "--policies", "cost-model,cost-model-exact,greedy-exact-ttft,least-loaded"
  };

  @Test
  void theCostModelIsNeverWorseThanLeastLoadedInAnyCell(@TempDir final Path dir) throws Exception {
    final FleetGrid.Spec spec = FleetGrid.Spec.parse(SMALL);
    final List<FleetGrid.Cell> cells = FleetGrid.run(spec, false);
    assertThat(cells).hasSize(2 * 2 * 2);
    for (FleetGrid.Cell c : cells) {
      assertThat(c.p90(FleetPolicy.COST_MODEL))
          .as(FleetGrid.cellName(c))
          .isLessThanOrEqualTo(c.p90(FleetPolicy.LEAST_LOADED));
      assertThat(c.results().get(FleetPolicy.COST_MODEL).hitRate())
          .as(FleetGrid.cellName(c))
          .isGreaterThan(c.results().get(FleetPolicy.LEAST_LOADED).hitRate());
      for (FleetResult r : c.results().values()) {
        final String what = FleetGrid.cellName(c) + " " + r.policy().label;
        assertThat(r.ttftP90Ms()).as(what).isGreaterThanOrEqualTo(c.ttftP90BoundMs());
        assertThat(r.breakdown().p90NoWaitMs()).as(what).isLessThanOrEqualTo(r.ttftP90Ms());
        assertThat(r.breakdown().p90FullReuseMs()).as(what).isLessThanOrEqualTo(r.ttftP90Ms());
        assertThat(r.breakdown().tailPrefillMs() + r.breakdown().tailWaitMs())
            .as(what)
            .isGreaterThanOrEqualTo(r.ttftP90Ms());
      }
      // The clairvoyant greedy rule knows more than the formula on exact counts.
      assertThat(c.p90(FleetPolicy.GREEDY_TTFT))
          .as(FleetGrid.cellName(c))
          .isLessThanOrEqualTo(c.p90(FleetPolicy.LEAST_LOADED));
    }
    // Same trace, capacity and load, another interval: the very same least-loaded result.
    assertThat(cells.get(1).results().get(FleetPolicy.LEAST_LOADED))
        .isSameAs(cells.get(0).results().get(FleetPolicy.LEAST_LOADED));
    assertThat(cells.get(1).statsSeconds()).isNotEqualTo(cells.get(0).statsSeconds());
    assertThat(cells.get(1).results().get(FleetPolicy.COST_MODEL_EXACT))
        .isSameAs(cells.get(0).results().get(FleetPolicy.COST_MODEL_EXACT));

    final Path json = dir.resolve("grid.json");
    FleetGrid.writeJson(cells, json);
    assertThat(Files.readString(json))
        .contains("\"statsIntervalSeconds\" : 0.25")
        .contains("\"ttftP90NoWaitMs\"");
    assertThat(FleetGridPlot.svg(cells))
        .startsWith("<svg")
        .contains("cost-model")
        .endsWith("</svg>\n");
    assertThat(FleetGrid.markdown(cells))
        .contains("| synthetic | 4,096 | 2.0 s | 90 % | cost-model |");
  }
}
