package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.controlplane.support.Http;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executable jar: {@code java -jar target/inference-cache.jar} needs no other flag, and a
 * command's standard output is its output only (logs on standard error).
 */
@Timeout(180)
class JarIT {
  private static final String JAR =
      System.getProperty("inferencecache.jar", "target/inference-cache.jar");

  /** Standard output must be one JSON document and nothing else. */
  private static final ObjectMapper STRICT_JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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

  /** A finished run: exit code, standard output and standard error apart. */
  private record Run(int exit, String out, String err) {}

  /**
   * Runs the jar to completion with {@code home} as the user's home and no Kubernetes variables:
   * outside a cluster, without a kubeconfig unless the arguments name one.
   */
  private static Run runOutsideACluster(final Path home, final String... args) throws Exception {
    final List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.add("-Xmx256m");
    cmd.add("-Duser.home=" + home);
    cmd.add("-jar");
    cmd.add(JAR);
    cmd.addAll(List.of(args));
    final ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectOutput(home.resolve("stdout").toFile())
            .redirectError(home.resolve("stderr").toFile());
    pb.environment().remove("KUBECONFIG");
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.environment().remove("KUBERNETES_SERVICE_PORT");
    pb.environment().put("HOME", home.toString());
    final Process p = pb.start();
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
    return new Run(
        p.exitValue(),
        Files.readString(home.resolve("stdout")),
        Files.readString(home.resolve("stderr")));
  }

  @Test
  void withoutAnyKubeconfigDoctorAndControllerSayWhatTheyTriedAndExitOne(@TempDir final Path home)
      throws Exception {
    final String tried =
        "no kubeconfig: --kubeconfig and $KUBECONFIG are unset, ~/.kube/config ("
            + home.resolve(".kube").resolve("config")
            + ") is missing, and this is not a pod (KUBERNETES_SERVICE_HOST unset); pass"
            + " --kubeconfig FILE or set KUBECONFIG";
    final Run doctor = runOutsideACluster(home, "doctor", "-o", "json");
    assertThat(doctor.exit()).as(doctor.err()).isEqualTo(1);
    assertThat(doctor.err()).isEqualTo("error: " + tried + "\n");
    assertThat(doctor.out()).isEmpty();
    final Run controller =
        runOutsideACluster(
            home, "controller", "--metrics-bind-address=0", "--health-probe-bind-address=:0");
    assertThat(controller.exit()).as(controller.err()).isEqualTo(1);
    assertThat(controller.err()).isEqualTo("controller: " + tried + "\n");
    assertThat(controller.out()).isEmpty();
  }

  @Test
  void doctorPrintsOnlyItsReportOnStdoutAndLogsOnStderrWhenAsked(@TempDir final Path home)
      throws Exception {
    // An API server that refuses connections: the Kubernetes client and Netty load and log.
    final Path kubeconfig = home.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server:"
            + " https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n"
            + "    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n");
    final String[] args = {
      "doctor", "--kubeconfig=" + kubeconfig, "--server-endpoint=127.0.0.1:1", "--timeout=2s"
    };
    final Run quiet = runOutsideACluster(home, concat(args, "-o", "json"));
    assertThat(quiet.exit()).as(quiet.err()).isEqualTo(2);
    final JsonNode report = STRICT_JSON.readTree(quiet.out());
    assertThat(report.path("findings").findValuesAsText("code")).contains("SV001", "API001");
    assertThat(report.path("findings").findValuesAsText("message"))
        .anyMatch(m -> m.contains("API server https://127.0.0.1:1 not reached"));
    assertThat(quiet.err()).doesNotContain("DEBUG").doesNotContain(" INFO ");

    final Run verbose = runOutsideACluster(home, concat(args, "-o", "json", "-v"));
    assertThat(STRICT_JSON.readTree(verbose.out()).path("findings").size())
        .isEqualTo(report.path("findings").size());
    assertThat(verbose.err()).contains("DEBUG");
    assertThat(verbose.out()).doesNotContain("DEBUG");

    final Run table = runOutsideACluster(home, concat(args, "-o", "table", "--log-level=debug"));
    assertThat(table.err()).contains("DEBUG");
    final List<String> rows = table.out().lines().toList();
    assertThat(rows.get(0)).matches("STATUS\\s+CODE\\s+CHECK\\s+RESOURCE\\s+MESSAGE");
    assertThat(rows.subList(1, rows.size()))
        .isNotEmpty()
        .allMatch(r -> r.matches("(OK|INFO|WARN|FAIL)\\s+[A-Z]{2,3}\\d{3}\\s+\\S+\\s+.*"));
  }

  @Test
  void aBadLogLevelIsAUsageErrorOnStderr(@TempDir final Path home) throws Exception {
    final Run doctor = runOutsideACluster(home, "doctor", "--log-level=loud");
    assertThat(doctor.exit()).isEqualTo(1);
    assertThat(doctor.err())
        .isEqualTo("error: invalid --log-level \"loud\": must be debug, info, warn or error\n");
    assertThat(doctor.out()).isEmpty();
  }

  @Test
  void subscribeAndFakeEngineKeepStdoutForTheirOutput(@TempDir final Path home) throws Exception {
    final Run subscribe = runOutsideACluster(home, "subscribe");
    assertThat(subscribe.exit()).isEqualTo(2);
    assertThat(subscribe.err()).startsWith("subscribe: ");
    assertThat(subscribe.out()).isEmpty();
    final int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    final Run fake =
        runOutsideACluster(
            home,
            "fake-engine",
            "--endpoint=tcp://127.0.0.1:" + port,
            "--num-blocks=2",
            "--batches=1",
            "--interval-ms=10");
    assertThat(fake.exit()).as(fake.err()).isZero();
    assertThat(fake.out().lines().toList())
        .hasSize(2)
        .allMatch(l -> l.matches("EXPECT prefix_hash\\[\\d+]=\\S+ token_count=\\d+"));
  }

  private static String[] concat(final String[] a, final String... b) {
    final String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void helpAndUsageExitCodes() throws Exception {
    assertThat(exit("serve", "--help")).isZero();
    assertThat(exit("serve", "--no-such-flag")).isEqualTo(2);
    assertThat(exit("serve")).isEqualTo(2);
  }

  @Test
  void servesThenShutsDownGracefullyOnSigterm(@TempDir final Path dir) throws Exception {
    final Path stdout = dir.resolve("stdout");
    final Process p =
        startLoggingOnStderr(
            stdout,
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
                      new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
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
    assertThat(Files.readString(stdout)).as("serve's stdout").isEmpty();
  }

  @Test
  void theControllerLogsOnStderrOnly(@TempDir final Path dir) throws Exception {
    // An API server that refuses connections: the controller starts and logs its failures.
    final Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server:"
            + " https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n"
            + "    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n");
    final Path stdout = dir.resolve("stdout");
    final Path stderr = dir.resolve("stderr");
    final Process p =
        new ProcessBuilder(
                java(),
                "-Xmx256m",
                "-jar",
                JAR,
                "controller",
                "--kubeconfig=" + kubeconfig,
                "--metrics-bind-address=0",
                "--health-probe-bind-address=127.0.0.1:0",
                "--webhook-bind-address=0",
                "--log-level=debug")
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(90))
          .until(() -> Files.readString(stderr).contains("\"level\":"));
    } finally {
      // Killed: with the API server unreachable, SIGTERM waits out the start-up cache-sync waits.
      p.destroyForcibly();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(stdout)).as("controller's stdout").isEmpty();
  }

  private static String java() {
    return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
  }

  /** The jar with standard output to {@code stdout}; standard error stays a pipe. */
  private static Process startLoggingOnStderr(final Path stdout, final String... args)
      throws Exception {
    final List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx512m", "-jar", JAR));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).start();
  }
}
