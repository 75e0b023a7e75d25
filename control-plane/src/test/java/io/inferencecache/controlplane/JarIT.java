package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.support.Http;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The executable jar: {@code java -jar target/inference-cache.jar} needs no other flag. */
@Timeout(180)
class JarIT {
  private static final String JAR =
      System.getProperty("inferencecache.jar", "target/inference-cache.jar");

  private static Process start(final String... args) throws Exception {
    final List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.add("-Xmx512m");
    cmd.add("-jar");
    cmd.add(JAR);
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  private static int exit(final String... args) throws Exception {
    final Process p = start(args);
    p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  @Test
  void helpAndUsageExitCodes() throws Exception {
    assertThat(exit("serve", "--help")).isZero();
    assertThat(exit("serve", "--no-such-flag")).isEqualTo(2);
    assertThat(exit("serve")).isEqualTo(2);
  }

  @Test
  void servesThenShutsDownGracefullyOnSigterm() throws Exception {
    final Process p =
        start(
            "serve",
            "--insecure-disable-auth",
            "--grpc-bind-address=127.0.0.1:0",
            "--http-bind-address=127.0.0.1:0",
            "--snapshot-bind-address=127.0.0.1:0",
            "--log-format=json");
    final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    final Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  lines.add(l);
                }
              } catch (java.io.IOException e) {
                // process ended
              }
            });
    reader.start();
    try {
      final Pattern startup = Pattern.compile("inferencecache-public=127\\.0\\.0\\.1:(\\d+)");
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(90))
          .until(() -> lines.stream().anyMatch(l -> l.contains("\"msg\":\"startup")));
      final String line =
          lines.stream().filter(l -> l.contains("\"msg\":\"startup")).findFirst().orElseThrow();
      final Matcher m = startup.matcher(line);
      assertThat(m.find()).isTrue();
      final String base = "http://127.0.0.1:" + m.group(1);
      assertThat(Http.get(base + "/healthz").body()).isEqualTo("ok\n");
      assertThat(Http.get(base + "/readyz").statusCode()).isEqualTo(200);
      assertThat(Http.get(base + "/metrics").body()).contains("inferencecache_server_up 1.0");
      assertThat(lines).noneMatch(l -> l.contains("WARNING: An illegal reflective access"));
    } finally {
      // SIGTERM without closing our end of the pipe (Process.destroy() closes the streams).
      p.toHandle().destroy();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      reader.join(10_000);
    }
    assertThat(lines).anyMatch(l -> l.contains("\"msg\":\"graceful_shutdown_started\""));
    assertThat(lines).anyMatch(l -> l.contains("\"msg\":\"graceful_shutdown_done\""));
  }
}
