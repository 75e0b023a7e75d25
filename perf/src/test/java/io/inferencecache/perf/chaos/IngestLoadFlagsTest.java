package io.inferencecache.perf.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** IngestLoad's command line (picocli): both flag forms, defaults, usage errors. */
class IngestLoadFlagsTest {
  @Test
  void loadTakesBothFlagFormsAndKeepsItsDefaults() {
    final IngestLoad.LoadFlags f = new IngestLoad.LoadFlags();
    new CommandLine(f)
        .parseArgs("--target", "127.0.0.1:9", "--acked=/tmp/acked", "--batch", "8", "--rate=2.5");
    assertThat(f.target).isEqualTo("127.0.0.1:9");
    assertThat(f.acked).isEqualTo("/tmp/acked");
    assertThat(f.batch).isEqualTo(8);
    assertThat(f.rate).isEqualTo(2.5);
    assertThat(f.start).isZero();
    assertThat(f.blocks).isEqualTo(4);
    assertThat(f.replicas).isEqualTo(8);
    assertThat(f.maxChains).isEqualTo(1_000_000_000L);
    assertThat(f.maxSeconds).isEqualTo(60.0);
    assertThat(f.lookups).isZero();
  }

  @Test
  void checkKeepsItsDefaults() {
    final IngestLoad.CheckFlags f = new IngestLoad.CheckFlags();
    new CommandLine(f).parseArgs("--target", "h:1", "--acked", "a");
    assertThat(f.sample).isEqualTo(3000);
    assertThat(f.never).isEqualTo(200);
  }

  @Test
  void missingSubcommandOrRequiredFlagOrBadNumberIsAUsageError() {
    assertThat(run()).isEqualTo(2);
    assertThat(run("load", "--acked", "a")).as("no --target").isEqualTo(2);
    assertThat(run("check", "--target", "h:1", "--acked", "a", "--sample", "many")).isEqualTo(2);
    assertThat(run("bogus")).isEqualTo(2);
    assertThat(run("--help")).isZero();
    assertThat(run("load", "--help")).isZero();
  }

  private static int run(final String... args) {
    return new CommandLine(new IngestLoad.Tool())
        .setOut(new PrintWriter(new StringWriter()))
        .setErr(new PrintWriter(new StringWriter()))
        .execute(args);
  }
}
