package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Exit codes and messages of the start-up checks (correction 12), in process. */
@Timeout(60)
class InferenceCacheCliTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(final String... args) {
    return InferenceCacheCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void helpExitsZero() {
    assertThat(run("--help")).isZero();
    assertThat(run("serve", "--help")).isZero();
    assertThat(out.toString()).contains("--grpc-bind-address").contains("--snapshot-bind-address");
    assertThat(run("serve", "-h")).isZero();
  }

  @Test
  void subscriberAndFakeEngineCommandsHaveHelp() {
    assertThat(run("subscribe", "--help")).isZero();
    assertThat(out.toString())
        .contains("--engine-endpoint", "--replica-id", "--lora-adapter-names");
    assertThat(run("fake-engine", "--help")).isZero();
    assertThat(out.toString()).contains("--num-blocks", "--gap-after", "--restart-after");
  }

  @Test
  void anInvalidSubscriberConfigurationExitsTwoNamingTheProblem() {
    assertThat(run("subscribe", "--model-id=m")).isEqualTo(2); // --replica-id is required
    assertThat(err.toString()).contains("replica-id");
    assertThat(run("subscribe", "--replica-id=r", "--model-id=m", "--window=soon")).isEqualTo(2);
    assertThat(run("subscribe", "--replica-id=r", "--model-id=m", "--lora-adapter-names=x"))
        .isEqualTo(2);
    assertThat(run("subscribe", "--replica-id=r", "--model-id=m", "--http-address=9105"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--http-address: want host:port, :port or [ipv6]:port");
  }

  @Test
  void aSubscriberHttpAddressInUseExitsOneNamingIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      final String address = "127.0.0.1:" + taken.getLocalPort();
      assertThat(
              run(
                  "subscribe",
                  "--replica-id=r",
                  "--model-id=m",
                  "--engine-metrics-url=",
                  "--http-address=" + address))
          .isEqualTo(1);
      assertThat(err.toString()).contains("--http-address " + address + ": cannot bind");
    }
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(run()).isEqualTo(2);
    assertThat(run("serve", "--bogus")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option").contains("Usage:");
    assertThat(run("serve", "--engine-block-size=abc")).isEqualTo(2);
    assertThat(run("serve", "--insecure-disable-auth=maybe")).isEqualTo(2);
  }

  @Test
  void logFlagsAreCheckedFirst() {
    assertThat(run("serve", "--log-format=xml")).isEqualTo(2);
    assertThat(err.toString()).contains("--log-format");
    assertThat(run("serve", "--log-level=loud", "--tls-cert-file=x")).isEqualTo(2);
    assertThat(err.toString()).contains("--log-level");
  }

  @Test
  void authFlagMatrixExitsTwo() {
    assertThat(run("serve")).isEqualTo(2);
    assertThat(err.toString()).contains("--allowed-controller-sa is required");
    assertThat(run("serve", "--allowed-controller-sa=sa", "--insecure-disable-auth")).isEqualTo(2);
    assertThat(run("serve", "--allowed-controller-sa= sa")).isEqualTo(2);
    assertThat(run("serve", "--allowed-controller-sa=sa", "--controller-audience= ")).isEqualTo(2);
    assertThat(run("serve", "--allowed-controller-sa=sa", "--policy-audience=")).isEqualTo(2);
    assertThat(run("serve", "--allowed-controller-sa=sa", "--policy-audience= p")).isEqualTo(2);
  }

  @Test
  void kubernetesClientFailureExitsOne() {
    // No in-cluster environment and no kubeconfig/apiServerUrl configured.
    assertThat(run("serve", "-allowed-controller-sa=sa", "--tls-cert-file=x")).isEqualTo(1);
    assertThat(err.toString()).contains("kubernetes client");
  }

  @Test
  void tlsHalvesExitTwoAndLoadFailureExitsOne() {
    assertThat(run("serve", "--insecure-disable-auth", "--tls-cert-file=/nope")).isEqualTo(2);
    assertThat(err.toString())
        .contains("server: --tls-cert-file and --tls-key-file must both be set or both be empty");
    assertThat(
            run(
                "serve",
                "--insecure-disable-auth",
                "--tls-cert-file=/nope",
                "--tls-key-file=/nope"))
        .isEqualTo(1);
    assertThat(err.toString()).contains("load TLS key pair");
  }

  @Test
  void badConfigurationExitsTwoNamingTheSetting() throws Exception {
    final Path bad = dir.resolve("bad.yml");
    Files.writeString(bad, "index:\n  maxEntries: 0\n");
    assertThat(run("serve", "--insecure-disable-auth", "--config", bad.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("index.maxEntries");
    final Path unknown = dir.resolve("unknown.yml");
    Files.writeString(unknown, "nosuchsetting: 1\n");
    assertThat(run("serve", "--insecure-disable-auth", unknown.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("nosuchsetting");
    assertThat(run("serve", "--insecure-disable-auth", dir.resolve("missing.yml").toString()))
        .isEqualTo(2);
  }

  @Test
  void unlistenableAddressExitsOne() {
    assertThat(run("serve", "--insecure-disable-auth", "--http-bind-address=nonsense"))
        .isEqualTo(1);
    assertThat(err.toString()).contains("missing port");
  }

  @Test
  void goSingleDashFlagsAreAccepted() {
    assertThat(
            InferenceCacheCli.goFlags(
                new String[] {"serve", "-log-level=debug", "-h", "--x", "--", "-y"}))
        .containsExactly("serve", "--log-level=debug", "-h", "--x", "--", "-y");
  }
}
