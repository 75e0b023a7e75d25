package io.inferencecache.perf.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI-sized crash/restart run: {@code ops/chaos/kill-restart.sh 5} (four SIGKILLs under ingest,
 * one during start-up/recovery, then a final restart and a graceful SIGTERM under ingest and
 * lookups) against the real jar. Passes when nothing acknowledged is lost, no lookup names a
 * replica that did not report the chain, every restart gets ready in bound, and SIGTERM closes the
 * index cleanly. The script's output is kept in {@code target/kill-restart-it.log}.
 */
@Timeout(600)
class KillRestartIT {
  @Test
  void survivesKillsAndAGracefulStop() throws IOException, InterruptedException {
    final Path log = Path.of("target", "kill-restart-it.log");
    final ProcessBuilder pb =
        new ProcessBuilder("bash", System.getProperty("chaos.script"), "5")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("JAR", System.getProperty("inferencecache.jar"));
    pb.environment().put("PERF_JAR", System.getProperty("perf.jar"));
    pb.environment()
        .put(
            "JAVA",
            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    pb.environment().put("STARTUP_KILL_EVERY", "5");
    pb.environment().put("MAX_CHAINS", "20000");
    pb.environment().put("RATE", "3000");
    pb.environment().put("INDEX_MAX_ENTRIES", "200000");
    pb.environment().put("MAX_KILL_DELAY_MS", "1000");
    pb.environment().put("RUN_BOUND_S", "420");
    pb.environment().put("SEED", "7");
    final Process p = pb.start();
    final boolean ended = p.waitFor(540, TimeUnit.SECONDS);
    if (!ended) {
      p.destroy(); // SIGTERM: the script's trap kills its server and client
      p.waitFor(30, TimeUnit.SECONDS);
    }
    final String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended).as("script ended in bound:\n%s", out).isTrue();
    assertThat(out).as("script output").contains("RESULT=PASS");
    assertThat(p.exitValue()).as("exit code:\n%s", out).isZero();
    assertThat(out).contains("kills_under_load=4", "kills_during_startup=1", "acked_missing=0");
  }
}
