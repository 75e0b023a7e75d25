package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet simulator in engine mode: the same seed and flags give the same table; the simulation's
 * invariants hold (every request served once, round-robin even, hit rates within the trace's reuse
 * bound); the load-aware strategy changes the hint policy's answers and nothing else; the outputs
 * are written.
 */
class FleetSimulatorTest {
  static FleetOptions small(final String... extra) {
    final String[] base = {"--requests", "1200", "--loads", "0.6,0.9", "--quiet"};
    final String[] args = new String[base.length + extra.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(extra, 0, args, base.length, extra.length);
    return FleetOptions.parse(args);
  }

  @Test
  void sameSeedAndFlagsGiveTheSameTable() throws Exception {
    final FleetSimulator.Report a = FleetSimulator.run(small());
    final FleetSimulator.Report b = FleetSimulator.run(small());
    assertThat(a.markdown()).isEqualTo(b.markdown());
    assertThat(a.rows()).isEqualTo(b.rows());
  }

  @Test
  void everyRequestIsServedAndFiguresStayWithinTheirBounds() throws Exception {
    final FleetSimulator.Report r = FleetSimulator.run(small());
    assertThat(r.reuseBound()).isBetween(0.0, 1.0);
    for (Map.Entry<Double, List<FleetResult>> row : r.rows()) {
      assertThat(row.getValue()).hasSize(FleetPolicy.values().length);
      for (FleetResult f : row.getValue()) {
        assertThat(f.requests()).isEqualTo(1200);
        assertThat(f.meanPerReplica()).isEqualTo(150.0);
        assertThat(f.hitRate()).isBetween(0.0, r.reuseBound());
        assertThat(f.ttftP50Ms()).isPositive().isLessThanOrEqualTo(f.ttftP90Ms());
        assertThat(f.ttftP90Ms()).isLessThanOrEqualTo(f.ttftP99Ms());
        if (f.policy() == FleetPolicy.ROUND_ROBIN) {
          assertThat(f.maxPerReplica()).isEqualTo(150);
        }
        if (f.policy().usesIndex) {
          assertThat(f.reasons().values().stream().mapToLong(Long::longValue).sum())
              .isEqualTo(1200 - 8); // the first request of each replica is the warm start
        } else {
          assertThat(f.reasons()).isEmpty();
        }
      }
    }
  }

  @Test
  void theLoadAwarePolicyChangesOnlyTheHintPolicysAnswers() throws Exception {
    final FleetSimulator.Report r = FleetSimulator.run(small());
    final List<FleetResult> at90 = r.rows().get(1).getValue();
    final FleetResult upstream = at90.get(FleetPolicy.TOP_HINT.ordinal());
    final FleetResult loadAware = at90.get(FleetPolicy.TOP_HINT_LOAD_AWARE.ordinal());
    assertThat(loadAware.ttftP90Ms()).isNotEqualTo(upstream.ttftP90Ms());
    assertThat(loadAware.waitMeanMs()).isLessThan(upstream.waitMeanMs());
    // With the strategy's parameters changed, the peers' figures stay exactly the same.
    final FleetSimulator.Report other =
        FleetSimulator.run(small("--pressure-tokens", "1", "--hint-pressure", "0"));
    final List<FleetResult> otherAt90 = other.rows().get(1).getValue();
    for (FleetPolicy p : FleetPolicy.values()) {
      if (!p.loadAware) {
        assertThat(otherAt90.get(p.ordinal())).isEqualTo(at90.get(p.ordinal()));
      }
    }
  }

  @Test
  void writesTableJsonAndPlot(@TempDir final Path dir) throws Exception {
    final FleetSimulator.Report r =
        FleetSimulator.run(small("--policies", "round-robin,top-hint", "--requests", "300"));
    r.writeJson(dir.resolve("fleet.json"));
    FleetPlot.write(r, dir.resolve("fleet.png"));
    assertThat(Files.readString(dir.resolve("fleet.json"))).contains("\"ttftP90Ms\"");
    final byte[] png = Files.readAllBytes(dir.resolve("fleet.png"));
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    assertThat(r.markdown()).contains("| round-robin | 60 % |").contains("| top-hint | 90 % |");
  }

  @Test
  void badFlagsAreRefusedWithTheirName() {
    assertThatThrownBy(() -> FleetOptions.parse(new String[] {"--loads", "0.5,2"}))
        .hasMessageContaining("--loads");
    assertThatThrownBy(() -> FleetOptions.parse(new String[] {"--policies", "random"}))
        .hasMessageContaining("unknown policy random");
    assertThatThrownBy(() -> FleetOptions.parse(new String[] {"--slots", "0"}))
        .hasMessageContaining("--slots must be >= 1");
    assertThatThrownBy(() -> FleetOptions.parse(new String[] {"--greedy-output", "oracle"}))
        .hasMessageContaining("--greedy-output must be exact or mean");
  }
}
