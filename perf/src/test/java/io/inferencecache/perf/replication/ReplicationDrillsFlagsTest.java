package io.inferencecache.perf.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line of ReplicationDrills: the figures' defaults, usage errors, the median. */
class ReplicationDrillsFlagsTest {
  @Test
  void catchUpDefaultsAreFigureThreesSizes() {
    final ReplicationDrills.CatchUpCommand c = new ReplicationDrills.CatchUpCommand();
    new CommandLine(c).parseArgs("--jar", "x.jar");
    assertThat(c.common.jar).isEqualTo("x.jar");
    assertThat(c.runs).isEqualTo(3);
    assertThat(c.entries).isEqualTo(1_000_000);
    assertThat(c.missed).isEqualTo(100_000);
    assertThat(c.blocks).isEqualTo(4);
    assertThat(c.wipedChainsPerUpdate).isEqualTo(64);
  }

  @Test
  void drillsDefaultToAThirtySecondOutageAndATenThousandRewind() {
    final ReplicationDrills.DrillsCommand d = new ReplicationDrills.DrillsCommand();
    new CommandLine(d).parseArgs("--work", "/tmp/w");
    assertThat(d.common.work).isEqualTo(Path.of("/tmp/w"));
    assertThat(d.outageSeconds).isEqualTo(30);
    assertThat(d.rewind).isEqualTo(10_000);
    assertThat(d.chains).isGreaterThan(d.rewind);
  }

  @Test
  void unknownFlagsExitTwoAndHelpZero() {
    assertThat(exec("catch-up", "--entries", "many")).isEqualTo(2);
    assertThat(exec("drills", "--no-such-flag")).isEqualTo(2);
    assertThat(exec("ingest", "--help")).isZero();
  }

  @Test
  void medianIsTheMiddleValueAndTheLowerMiddleOfAnEvenCount() {
    assertThat(ReplicationDrills.median(List.of(30L, 10L, 20L))).isEqualTo(20);
    assertThat(ReplicationDrills.median(List.of(40L, 10L, 30L, 20L))).isEqualTo(20);
  }

  private static int exec(final String... args) {
    return new CommandLine(new ReplicationDrills())
        .setOut(new PrintWriter(new StringWriter()))
        .setErr(new PrintWriter(new StringWriter()))
        .execute(args);
  }
}
