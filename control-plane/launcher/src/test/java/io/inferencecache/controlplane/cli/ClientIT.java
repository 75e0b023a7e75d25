package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.controlplane.webhook.WebhookCerts;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar inference-cache.jar client ...} as a newcomer runs it, against a whole server in
 * process on loopback: two replicas report chains of different depths, a lookup ranks them (table
 * and JSON), misses are explained, stdout carries the output alone.
 */
@Timeout(240)
class ClientIT {
  private static final String JAR =
      System.getProperty("inferencecache.jar", "target/inference-cache.jar");
  private static final String MODEL = "llama-3.1-8b";

  private static TestServer server;
  private static String address;

  @TempDir static Path dir;

  private record Run(int exit, String out, String err) {}

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(ServeOverrides.NONE.insecure(), null);
    address = "127.0.0.1:" + server.grpcPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Run client(final String... args) throws Exception {
    final List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-jar", JAR, "client"));
    cmd.addAll(List.of(args));
    if (!List.of(args).contains("--timeout") && !List.of(args).contains("--help")) {
      // a loaded 2-core machine can take seconds for a first TLS handshake: no flaky 10 s bound
      cmd.addAll(List.of("--timeout", "60s"));
    }
    final Path out = Files.createTempFile(dir, "out", ".txt");
    final Path err = Files.createTempFile(dir, "err", ".txt");
    final Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("client %s ended", List.of(args)).isTrue();
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private static List<String> scope(final String tenant, final String... more) {
    final List<String> a = new ArrayList<>(List.of("--address", address, "--tenant", tenant));
    a.addAll(List.of("--model", MODEL));
    a.addAll(List.of(more));
    return a;
  }

  private static Run client(final List<String> args) throws Exception {
    return client(args.toArray(String[]::new));
  }

  private static List<String> cmd(final String sub, final List<String> rest) {
    final List<String> a = new ArrayList<>();
    a.add(sub);
    a.addAll(rest);
    return a;
  }

  @Test
  void reportedChainsOfTwoReplicasAreRankedByMatchedTokensInTableAndJson() throws Exception {
    final Run deep =
        client(
            cmd(
                "report",
                scope("team-tour", "--replica", "vllm-0", "--blocks", "1,2,3,4,5,6,7,8")));
    assertThat(deep.exit()).as(deep.err()).isZero();
    assertThat(deep.out())
        .isEqualTo(
            "accepted: vllm-0 holds 8 blocks (128 tokens, T1) in tenant team-tour, model "
                + MODEL
                + ", hash scheme vllm\n");
    final Run shallow =
        client(
            cmd(
                "report",
                scope(
                    "team-tour",
                    "--replica",
                    "vllm-1",
                    "--blocks",
                    "0x1,0x2,0x3,0x4",
                    "--pressure",
                    "0.2")));
    assertThat(shallow.exit()).as(shallow.err()).isZero();
    assertThat(shallow.out())
        .startsWith("accepted: vllm-1 holds 4 blocks (64 tokens, T1) and stats");

    final Run table = client(cmd("lookup", scope("team-tour", "--blocks", "1,2,3,4,5,6,7,8")));
    assertThat(table.exit()).as(table.err()).isZero();
    final List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).isEqualTo("PREFIX_MATCH");
    assertThat(lines.get(1)).matches("RANK +REPLICA +MATCHED_TOKENS +SCORE");
    // vllm-0 alone holds 128 tokens: distinguishing power 1/2, score just under 64;
    // both hold the first 64: power 0, score 0 (docs/behaviour.md#scores)
    assertThat(lines.get(2)).matches("1 +vllm-0 +128 +6[34](\\.\\d+)?");
    assertThat(lines.get(3)).matches("2 +vllm-1 +64 +0");

    final Run json =
        client(cmd("lookup", scope("team-tour", "--blocks", "1,2,3,4,5,6,7,8", "-o", "json")));
    assertThat(json.exit()).as(json.err()).isZero();
    final LookupRouteResponse.Builder r = LookupRouteResponse.newBuilder();
    JsonFormat.parser().merge(json.out(), r);
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScoresList())
        .extracting(s -> s.getReplicaId() + "/" + s.getMatchedTokens() + "/" + s.getTier())
        .containsExactly(
            "vllm-0/128/" + CacheTier.CACHE_TIER_T1, "vllm-1/64/" + CacheTier.CACHE_TIER_T1);
    assertThat(r.getReplicaScores(0).getScore()).isBetween(63f, 64f);

    // a gateway's deadline: the connection is made first, the call alone must fit
    final Run deadline =
        client(
            cmd("lookup", scope("team-tour", "--blocks", "1,2,3,4,5,6,7,8", "--deadline", "2s")));
    assertThat(deadline.out()).startsWith("PREFIX_MATCH\n");
  }

  @Test
  void tokenIdsReportedHereMatchTheServersFingerprintOfALookupsTokenIds() throws Exception {
    final String tokens = String.join(",", range(1, 80));
    final Run report =
        client(cmd("report", scope("team-tokens", "--replica", "vllm-7", "--token-ids", tokens)));
    assertThat(report.exit()).as(report.err()).isZero();
    assertThat(report.out()).contains("vllm-7 holds 5 blocks (80 tokens, T1)");
    final Run lookup =
        client(cmd("lookup", scope("team-tokens", "--token-ids", String.join(",", range(1, 90)))));
    assertThat(lookup.exit()).as(lookup.err()).isZero();
    assertThat(lookup.out().lines().toList()).hasSize(3).first().isEqualTo("PREFIX_MATCH");
    assertThat(lookup.out().lines().toList().get(2)).matches("1 +vllm-7 +80 +\\d+(\\.\\d+)?");
  }

  @Test
  void missesPrintTheirReasonCodeAloneAndExitZero() throws Exception {
    final Run seed =
        client(cmd("report", scope("team-miss", "--replica", "vllm-0", "--blocks", "11,12,13,14")));
    assertThat(seed.exit()).as(seed.err()).isZero();

    final Run unknownTenant =
        client(cmd("lookup", scope("team-nobody", "--blocks", "11,12,13,14")));
    assertThat(unknownTenant.exit()).isZero();
    assertThat(unknownTenant.out()).isEqualTo("UNKNOWN_TENANT\n");
    assertThat(unknownTenant.err()).isEmpty();

    final Run unknownScheme =
        client(
            cmd(
                "lookup",
                scope("team-miss", "--blocks", "11,12,13,14", "--hash-scheme", "sglang")));
    assertThat(unknownScheme.out()).isEqualTo("UNKNOWN_HASH_SCHEME\n");

    final Run json = client(cmd("lookup", scope("team-nobody", "--blocks", "11", "-o", "json")));
    final LookupRouteResponse.Builder r = LookupRouteResponse.newBuilder();
    JsonFormat.parser().merge(json.out(), r);
    assertThat(r.getReasonCode()).isEqualTo("UNKNOWN_TENANT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void anUnreachableServerAndUsageErrorsLeaveStdoutEmpty() throws Exception {
    final int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    final Run down =
        client(
            "report",
            "--address",
            "127.0.0.1:" + closed,
            "--tenant",
            "t",
            "--model",
            "m",
            "--replica",
            "r",
            "--blocks",
            "1");
    assertThat(down.exit()).isEqualTo(1);
    assertThat(down.out()).isEmpty();
    assertThat(down.err().lines().toList())
        .singleElement()
        .asString()
        .matches(
            Pattern.quote("client report: cannot reach 127.0.0.1:" + closed + " (")
                + ".*is the server running\\?.*");

    final Run usage = client(cmd("lookup", scope("t", "--blocks", "1,,2")));
    assertThat(usage.exit()).isEqualTo(2);
    assertThat(usage.out()).isEmpty();
    assertThat(usage.err().lines().toList()).singleElement().asString().contains("empty item");
  }

  @Test
  void aTlsServerIsReachedWithItsCaFileAndRefusedWithoutIt() throws Exception {
    final WebhookCerts certs = new WebhookCerts();
    final Path tls = dir.resolve("tls");
    certs.writeServing(tls, "inference-cache");
    final Path ca = Files.writeString(dir.resolve("ca.crt"), certs.caPem());
    try (TestServer secure =
        TestServer.start(
            new ServeOverrides(
                null,
                null,
                null,
                null,
                true,
                null,
                null,
                tls.resolve("tls.crt").toString(),
                tls.resolve("tls.key").toString(),
                null,
                null,
                null,
                null,
                null),
            null)) {
      final String at = "127.0.0.1:" + secure.grpcPort();
      final List<String> scope = List.of("--address", at, "--tenant", "team-tls", "--model", MODEL);
      final List<String> report = new ArrayList<>(cmd("report", scope));
      report.addAll(
          List.of("--ca-file", ca.toString(), "--replica", "vllm-0", "--blocks", "1,2,3,4"));
      final Run reported = client(report);
      assertThat(reported.exit()).as(reported.err()).isZero();
      final List<String> lookup = new ArrayList<>(cmd("lookup", scope));
      lookup.addAll(List.of("--blocks", "1,2,3,4"));
      final List<String> trusted = new ArrayList<>(lookup);
      trusted.addAll(List.of("--ca-file", ca.toString()));
      assertThat(client(trusted).out()).startsWith("PREFIX_MATCH\n");

      final Run plaintext = client(lookup);
      assertThat(plaintext.exit()).isEqualTo(1);
      assertThat(plaintext.out()).isEmpty();
      assertThat(plaintext.err()).startsWith("client lookup: cannot reach " + at);
      final List<String> untrusted = new ArrayList<>(lookup);
      untrusted.add("--tls");
      final Run notTrusted = client(untrusted);
      assertThat(notTrusted.exit()).isEqualTo(1);
      assertThat(notTrusted.err())
          .contains("certificate is not trusted: give its CA with --ca-file");
    }
  }

  private static List<String> range(final int from, final int to) {
    final List<String> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add(Integer.toString(i));
    }
    return out;
  }
}
