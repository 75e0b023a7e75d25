package io.inferencecache.controlplane.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Debian's Prometheus server as a child process on 127.0.0.1 and a free port, with its storage in a
 * temporary directory; {@link #close()} stops it by PID (SIGTERM, then SIGKILL) and removes the
 * storage.
 */
public final class PrometheusProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path dir;
  private final int port;

  private PrometheusProcess(final Process process, final Path dir, final int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /**
   * Starts Prometheus with {@code config} (prometheus.yml text; {@code rule_files} may name files
   * by absolute path) and waits until it answers {@code /-/ready}.
   */
  public static PrometheusProcess start(final String config) throws IOException {
    final Path binary = Executables.onPath("prometheus", "prometheus");
    final Path dir = Files.createTempDirectory("inference-cache-prometheus-");
    final Path file = dir.resolve("prometheus.yml");
    Files.writeString(file, config, StandardCharsets.UTF_8);
    final int port = freeLoopbackPort();
    final Process p =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + file,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    final PrometheusProcess prometheus = new PrometheusProcess(p, dir, port);
    try {
      Awaitility.await("Prometheus ready on 127.0.0.1:" + port)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () -> {
                if (!p.isAlive()) {
                  throw new AssertionError("Prometheus exited: " + prometheus.log());
                }
                return Http.get(prometheus.url("/-/ready")).statusCode() == 200;
              });
    } catch (RuntimeException | Error e) {
      prometheus.close();
      throw e;
    }
    return prometheus;
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  public String url(final String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /** Prometheus' own log so far (for failure messages). */
  public String log() {
    try {
      return Files.readString(dir.resolve("prometheus.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * An instant query through {@code /api/v1/query}.
   *
   * @return the whole JSON answer ({@code status}, {@code data.result} or {@code error})
   */
  public JsonNode query(final String promql) throws IOException, InterruptedException {
    final String body =
        Http.get(url("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
            .body();
    return JSON.readTree(body);
  }

  /** The rule groups Prometheus loaded and evaluates ({@code /api/v1/rules}). */
  public List<JsonNode> ruleGroups() throws IOException, InterruptedException {
    final JsonNode groups = JSON.readTree(Http.get(url("/api/v1/rules")).body()).at("/data/groups");
    return List.copyOf(
        JSON.convertValue(
            groups, JSON.getTypeFactory().constructCollectionType(List.class, JsonNode.class)));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not a test failure
    }
  }
}
