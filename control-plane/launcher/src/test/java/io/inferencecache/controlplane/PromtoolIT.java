package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.Executables;
import io.inferencecache.controlplane.support.TestServer;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Prometheus' own linter, {@code promtool check metrics}, finds nothing to warn about in a live
 * {@code /metrics} after traffic (every series family present: ours, Jetty's, the health checks',
 * the JVM's). promtool comes with Debian's {@code prometheus} package; without it this test fails.
 */
@Timeout(120)
class PromtoolIT {
  @Test
  void promtoolFindsNoProblemInALiveMetricsPage() throws Exception {
    final Path promtool = Executables.onPath("promtool", "prometheus");
    try (TestServer server = TestServer.start(ServeOverrides.NONE.insecure(), null)) {
      server.wiring().routeMetrics().record("m", "PREFIX_MATCH", true, 200_000);
      assertThat(get(server.publicUrl("/healthz")).statusCode()).isEqualTo(200);
      assertThat(call("GET", server.snapshotUrl("/snapshot"), null, null).statusCode())
          .isEqualTo(200);
      final String page = get(server.publicUrl("/metrics")).body();
      assertThat(page).contains("inferencecache_server_up").contains("jetty");

      final Process p =
          new ProcessBuilder(promtool.toString(), "check", "metrics")
              .redirectErrorStream(true)
              .start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(page.getBytes(StandardCharsets.UTF_8));
      }
      final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(out).as("promtool check metrics output").isEmpty();
      assertThat(p.exitValue()).isZero();
    }
  }
}
