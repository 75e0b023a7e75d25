package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.client.ChainArgs;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code client report} and {@code client lookup}: flags to messages, usage errors, no server. */
@Timeout(60)
class ClientCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(final String... args) {
    return InferenceCacheCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static CacheStateUpdate update(final String... args) {
    final ClientReportCommand c = new ClientReportCommand();
    new CommandLine(c).parseArgs(args);
    return c.update();
  }

  private static LookupRouteRequest request(final String... args) {
    final ClientLookupCommand c = new ClientLookupCommand();
    new CommandLine(c).parseArgs(args);
    return c.request();
  }

  @Test
  void reportSendsOneChainEntryWithTheScopeAndPerBlockCounts() {
    final CacheStateUpdate u =
        update(
            "--tenant=team-a",
            "--model=llama",
            "--replica=vllm-0",
            "--blocks=1,2,0x3",
            "--block-tokens=16,16,8",
            "--tier=t2",
            "--adapter=lora-1");
    assertThat(u.getTenantId()).isEqualTo("team-a");
    assertThat(u.getModelId()).isEqualTo("llama");
    assertThat(u.getReplicaId()).isEqualTo("vllm-0");
    assertThat(u.getHashScheme()).isEqualTo("vllm");
    assertThat(u.getAdapterId()).isEqualTo("lora-1");
    assertThat(u.getTimestampUs()).isZero();
    assertThat(u.hasStats()).isFalse();
    final PrefixEntry e = u.getPrefixes(0);
    assertThat(e.getBlockHashesList()).isEqualTo(ChainArgs.blockHashes("--blocks", "1,2,3"));
    assertThat(e.getBlockTokenCountsList()).containsExactly(16, 16, 8);
    assertThat(e.getTier()).isEqualTo(CacheTier.CACHE_TIER_T2);
    assertThat(ClientReportCommand.accepted(u))
        .isEqualTo(
            "accepted: vllm-0 holds 3 blocks (40 tokens, T2) in tenant team-a, model llama,"
                + " hash scheme vllm, adapter lora-1");
  }

  @Test
  void reportOfTokenIdsSendsTheirFingerprintChainAndStatsWhenAsked() {
    final CacheStateUpdate u =
        update(
            "--tenant=t",
            "--model=m",
            "--replica=r",
            "--token-ids=" + "1,2,3,4,5,6,7,8,9,10",
            "--tokens-per-block=4",
            "--pressure=0.25");
    assertThat(u.getPrefixes(0).getBlockTokenCountsList()).containsExactly(4, 4);
    assertThat(u.getPrefixes(0).getBlockHashesList())
        .isEqualTo(ChainArgs.fingerprint(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 4));
    assertThat(u.getStats().getPressure()).isEqualTo(0.25f);
    assertThat(u.getStats().getReplicaId()).isEqualTo("r");
    assertThat(ClientReportCommand.accepted(u))
        .isEqualTo(
            "accepted: r holds 2 blocks (8 tokens, T1) and stats (pressure 0.25, hit rate 0)"
                + " in tenant t, model m, hash scheme vllm");
    final CacheStateUpdate statsOnly =
        update("--tenant=t", "--model=m", "--replica=r", "--hit-rate=0.5");
    assertThat(statsOnly.getPrefixesCount()).isZero();
    assertThat(ClientReportCommand.accepted(statsOnly))
        .isEqualTo(
            "accepted: r stats (pressure 0, hit rate 0.5) in tenant t, model m, hash scheme vllm");
  }

  @Test
  void lookupSendsTheChainOrTheTokenIdsWithTheScope() {
    final LookupRouteRequest chain =
        request(
            "--tenant=t", "--model=m", "--hash-scheme=sglang", "--blocks=7,8", "--slo-ttft-ms=50");
    assertThat(chain.getBlockHashesList()).isEqualTo(ChainArgs.blockHashes("--blocks", "7,8"));
    assertThat(chain.getBlockTokenCountsList()).containsExactly(16, 16);
    assertThat(chain.getHashScheme()).isEqualTo("sglang");
    assertThat(chain.getSlo().getTtftMs()).isEqualTo(50);
    assertThat(chain.getTokenIdsCount()).isZero();
    final LookupRouteRequest tokens = request("--tenant=t", "--model=m", "--token-ids=5,6,7");
    assertThat(tokens.getTokenIdsList()).containsExactly(5, 6, 7);
    assertThat(tokens.getBlockHashesCount()).isZero();
    assertThat(tokens.hasSlo()).isFalse();
  }

  @Test
  void usageErrorsExitTwoWithOneLineNamingTheFix() {
    assertThat(run("client", "lookup", "--tenant=t", "--model=m", "--blocks=1,zz")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "client lookup: --blocks: \"zz\" is not a hash: want decimal or 0x-hex digits"
                + " (see client lookup --help)"
                + System.lineSeparator());
    assertThat(out.toString()).isEmpty();
    assertThat(run("client", "report", "--tenant=t", "--model=m", "--blocks=1")).isEqualTo(2);
    assertThat(err.toString()).contains("client report: Missing required option: '--replica=ID'");
    assertThat(run("client", "report", "--tenant=t", "--model=m", "--replica=r")).isEqualTo(2);
    assertThat(err.toString()).contains("nothing to report: give --blocks or --token-ids");
    assertThat(run("client", "lookup", "--tenant=t", "--model=m", "--blocks=1", "--token-ids=1"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("give --blocks or --token-ids, not both");
    assertThat(run("client", "lookup", "--tenant=t", "--model=m", "--blocks=1", "-o", "yaml"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("-o/--output \"yaml\": want table or json");
    assertThat(
            run("client", "lookup", "--tenant=inferencecache.io/probe", "--model=m", "--blocks=1"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("reserved for the server's /probe");
    assertThat(run("client", "lookup", "--tenant=t", "--model=m", "--blocks=1", "--address=x"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--address \"x\": want HOST:PORT");
    assertThat(run("client", "lookup", "--tenant=t", "--model=m", "--blocks=1", "--timeout=soon"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--timeout: invalid duration");
    assertThat(run("client", "report", "--tenant=t", "--model=m", "--replica=r", "--pressure=2"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--pressure 2.0 must be between 0 and 1");
    assertThat(run("client", "lookup", "--bogus")).isEqualTo(2);
    assertThat(run("client")).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().lines())
        .filteredOn(l -> l.startsWith("client "))
        .allMatch(l -> l.endsWith("--help)"));
  }

  @Test
  void anUnreachableServerExitsOneWithOneLine() throws Exception {
    final int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    assertThat(
            run(
                "client",
                "lookup",
                "--address=127.0.0.1:" + port,
                "--tenant=t",
                "--model=m",
                "--blocks=1"))
        .isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().lines())
        .singleElement()
        .asString()
        .startsWith("client lookup: cannot reach 127.0.0.1:" + port + " (")
        .contains("is the server running?");
  }

  @Test
  void helpListsTheFlags() {
    assertThat(run("client", "lookup", "--help")).isZero();
    assertThat(out.toString())
        .contains("--address", "--blocks", "--token-ids", "--deadline", "--output", "--ca-file");
    assertThat(run("client", "report", "--help")).isZero();
    assertThat(out.toString()).contains("--replica", "--tokens-per-block", "--pressure", "--tier");
  }
}
