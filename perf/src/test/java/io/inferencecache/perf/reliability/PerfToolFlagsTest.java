package io.inferencecache.perf.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command lines of Overload and ConnectionAbuse (picocli): flags, defaults, usage errors. */
class PerfToolFlagsTest {
  @Test
  void overloadLookupsFlagsAndDefaults() {
    final Overload.LookupsFlags f = new Overload.LookupsFlags();
    new CommandLine(f).parseArgs("--grpc=h:1", "--http", "h:2", "--deadline-ms", "250");
    assertThat(f.grpc).isEqualTo("h:1");
    assertThat(f.http).isEqualTo("h:2");
    assertThat(f.deadlineMs).isEqualTo(250);
    assertThat(f.seconds).isEqualTo(10.0);
    assertThat(f.preload).isEqualTo(20_000);
    assertThat(f.channels).isEqualTo(4);
    assertThat(f.maxOutstanding).isEqualTo(20_000);
    assertThat(f.inFlight).isEqualTo(64);
  }

  @Test
  void overloadIngestFloodFlagsAndDefaults() {
    final Overload.IngestFloodFlags f = new Overload.IngestFloodFlags();
    new CommandLine(f).parseArgs("--grpc", "h:1", "--http", "h:2", "--snapshot", "h:3");
    assertThat(f.snapshot).isEqualTo("h:3");
    assertThat(f.rate).isEqualTo(500.0);
    assertThat(f.streams).isEqualTo(4);
  }

  @Test
  void connectionAbuseFlagsAndDefaults() {
    final ConnectionAbuse.Flags f = new ConnectionAbuse.Flags();
    new CommandLine(f).parseArgs("--grpc", "h:1", "--http", "h:2", "--snapshot", "h:3");
    assertThat(f.idle).isEqualTo(1000);
    assertThat(f.slowloris).isEqualTo(200);
    assertThat(f.seconds).isEqualTo(15);
  }

  @Test
  void usageErrorsExitTwoAndHelpZero() {
    assertThat(exec(new Overload.Tool())).isEqualTo(2);
    assertThat(exec(new Overload.Tool(), "lookups", "--grpc", "h:1")).as("no --http").isEqualTo(2);
    assertThat(exec(new Overload.Tool(), "ingest-flood", "--help")).isZero();
    assertThat(exec(new ConnectionAbuse.Flags(), "--grpc", "h:1")).isEqualTo(2);
    assertThat(exec(new ConnectionAbuse.Flags(), "--help")).isZero();
  }

  private static int exec(final Object command, final String... args) {
    return new CommandLine(command)
        .setOut(new PrintWriter(new StringWriter()))
        .setErr(new PrintWriter(new StringWriter()))
        .execute(args);
  }
}
