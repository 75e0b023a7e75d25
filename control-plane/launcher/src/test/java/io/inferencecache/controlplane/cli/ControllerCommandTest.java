package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The controller command's flags and its one-line setup failures, in process. */
@Timeout(60)
class ControllerCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(final String... args) {
    return InferenceCacheCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void helpListsEveryFlagWithItsDefault() {
    assertThat(run("controller", "--help")).isZero();
    assertThat(out.toString().replaceAll("\\s+", " "))
        .contains(
            "--metrics-bind-address",
            "default :8080",
            "--metrics-secure",
            "--metrics-cert-dir",
            "--enable-http2",
            "--leader-elect",
            "--health-probe-bind-address",
            "default :8081",
            "--server-snapshot-url",
            "http://inference-cache-server:8081/snapshot",
            "--server-policy-url",
            "http://inference-cache-server:8081/policy",
            "--server-probe-url",
            "--cacheindex-refresh-interval",
            "--cachepolicy-push-interval",
            "--kvevent-subscriber-image",
            "--policy-server-grpc-address",
            "inference-cache-server.inference-cache-system.svc.cluster.local:9090",
            "--kubeconfig",
            "--policy-token-file",
            "/var/run/secrets/inferencecache.io/policy-token/token",
            "--controller-token-file",
            "/var/run/secrets/inferencecache.io/controller-token/token",
            "--leader-election-namespace",
            "--log-format",
            "--zap-log-level");
  }

  @Test
  void aMissingKubeconfigExitsOneWithOneLine() {
    assertThat(run("controller", "--kubeconfig=" + dir.resolve("nope"))).isEqualTo(1);
    assertThat(err.toString().strip().lines().count()).isEqualTo(1);
    assertThat(err.toString().strip())
        .isEqualTo(
            "controller: kubeconfig " + dir.resolve("nope") + " (--kubeconfig) does not exist");
  }

  @Test
  void aBusyHealthPortExitsOneNamingTheFlag() throws Exception {
    final Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
            + "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n"
            + "users:\n- name: u\n  user:\n    token: t\n");
    try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, null)) {
      assertThat(
              run(
                  "controller",
                  "--kubeconfig=" + kubeconfig,
                  "--health-probe-bind-address=:" + busy.getLocalPort(),
                  "--metrics-bind-address=0"))
          .isEqualTo(1);
    }
    assertThat(err.toString()).startsWith("controller: --health-probe-bind-address");
  }

  @Test
  void aMissingWebhookCertificateExitsOneNamingTheFlag() throws Exception {
    final Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
            + "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n"
            + "users:\n- name: u\n  user:\n    token: t\n");
    assertThat(
            run(
                "controller",
                "--kubeconfig=" + kubeconfig,
                "--health-probe-bind-address=127.0.0.1:0",
                "--metrics-bind-address=0",
                "--webhook-bind-address=127.0.0.1:0",
                "--webhook-cert-dir=" + dir.resolve("no-certs")))
        .isEqualTo(1);
    assertThat(err.toString()).startsWith("controller: --webhook-cert-dir").contains("tls.crt");
  }

  @Test
  void badDurationsAndUrlsAreRefused() {
    assertThat(run("controller", "--cachepolicy-push-interval=soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--cachepolicy-push-interval");
    assertThat(run("controller", "--server-policy-url=not a url")).isEqualTo(1);
    assertThat(run("controller", "--log-level=loud")).isEqualTo(2);
  }

  @Test
  void metricsSecureWithoutACertDirExitsOneWithOneLine() {
    assertThat(run("controller", "--metrics-secure")).isEqualTo(1);
    assertThat(err.toString().strip().lines().count()).isEqualTo(1);
    assertThat(err.toString()).startsWith("controller: --metrics-secure needs --metrics-cert-dir");
  }

  @Test
  void metricsSecureWithAnEmptyCertDirExitsOneNamingTheFiles() {
    assertThat(run("controller", "--metrics-secure", "--metrics-cert-dir=" + dir)).isEqualTo(1);
    assertThat(err.toString()).startsWith("controller: --metrics-cert-dir").contains("tls.crt");
  }
}
