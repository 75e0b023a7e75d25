package io.inferencecache.controlplane.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The three output formats, byte for byte, against golden files in {@code doctor/}. */
class OutputFormatTest {
  private static String golden(final String name) throws IOException {
    try (InputStream in = OutputFormatTest.class.getResourceAsStream("/doctor/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** One finding of each status, out of ladder order, one without a resource, one multi-line. */
  private static Report mixed() {
    final Report r = new Report();
    r.add(Code.CT002, "CacheTenantHealth", "cachetenant/team-a/t", "within its quota");
    r.add(
        Code.SV001, "ServerReachability", "", "could not discover Service inference-cache-server");
    r.add(
        Code.CB002,
        "CacheBackendHealth",
        "cachebackend/team-a/b1",
        "engineSelector matches\n  no pod");
    r.add(Code.SN003, "SnapshotReachability", "http://h:8081/snapshot", "no bearer token was sent");
    r.add(Code.CP002, "CachePolicyCoverage", "namespace/team-a", "CachePolicy p <1> & \"q\"");
    return r;
  }

  /**
   * The findings of {@link #mixed()} as the checks emit them: server, backends, snapshot, tenants.
   */
  private static Report inEmissionOrder() {
    final java.util.List<String> order =
        java.util.List.of("SV001", "CB002", "SN003", "CT002", "CP002");
    final Report r = new Report();
    mixed().findings().stream()
        .sorted(java.util.Comparator.comparing((Finding f) -> order.indexOf(f.code().name())))
        .forEach(r::add);
    return r;
  }

  @Test
  void humanGroupsSectionsWorstFirstAndEndsWithTheSummary() throws IOException {
    assertThat(OutputFormat.HUMAN.render(mixed(), false)).isEqualTo(golden("mixed.human"));
  }

  @Test
  void humanInColourMarksLabelsTagsHeaderAndSummary() {
    final Report r = new Report();
    r.add(Code.CB001, "CacheBackendHealth", "cachebackend/a/b", "not ready");
    assertThat(OutputFormat.HUMAN.render(r, true))
        .isEqualTo(
            "\u001b[1minferencecache doctor\u001b[0m\n\n"
                + "\u001b[1m\u001b[33mWARN\u001b[0m\n"
                + "  \u001b[33mWARN CB001\u001b[0m  cachebackend/a/b\n"
                + "      not ready\n\n"
                + "\u001b[1mSummary: 0 OK, 0 INFO, 1 WARN, 0 FAIL  (exit 1)\u001b[0m\n");
  }

  @Test
  void tableAlignsColumnsInEmissionOrderWithDashForNoResourceAndOneLineMessages()
      throws IOException {
    final Report r = inEmissionOrder();
    assertThat(OutputFormat.TABLE.render(r, false)).isEqualTo(golden("mixed.table"));
  }

  @Test
  void jsonIsGoIndentedWithHtmlSafeEscapesAndOmitsAnEmptyResource() throws IOException {
    final Report r = inEmissionOrder();
    assertThat(OutputFormat.JSON.render(r, false)).isEqualTo(golden("mixed.json"));
  }

  @Test
  void anEmptyReportIsAnEmptyFindingsArrayAndExitsZero() throws IOException {
    assertThat(OutputFormat.JSON.render(new Report(), false)).isEqualTo(golden("empty.json"));
    assertThat(OutputFormat.HUMAN.render(new Report(), false))
        .isEqualTo("inferencecache doctor\n\nSummary: 0 OK, 0 INFO, 0 WARN, 0 FAIL  (exit 0)\n");
  }

  @Test
  void exitCodeFollowsTheWorstStatus() {
    final Report r = new Report();
    assertThat(r.exitCode()).isZero();
    r.add(Code.CP001, "CachePolicyCoverage", "namespace/a", "none");
    assertThat(r.exitCode()).as("INFO").isZero();
    r.add(Code.CB001, "CacheBackendHealth", "cachebackend/a/b", "not ready");
    assertThat(r.exitCode()).as("WARN").isEqualTo(1);
    r.add(Code.PL001, "PolicyReachability", "http://h:8081/policy", "404");
    assertThat(r.exitCode()).as("FAIL").isEqualTo(2);
  }

  @Test
  void everyCodeHasTheStatusOfTheCodeTable() {
    final String table =
        "API001 FAIL SV001 FAIL SV002 FAIL SV003 OK SN001 FAIL SN002 WARN SN003 INFO SN004 OK SN005 WARN"
            + " PL001 FAIL PL002 OK PL003 WARN PB001 FAIL PB002 OK PB003 WARN CB001 WARN CB002 WARN"
            + " CB003 WARN CB004 WARN CB005 WARN CB006 OK CB007 WARN EP001 WARN EP002 OK EP003 WARN"
            + " OP001 WARN CT001 WARN CT002 OK CP001 INFO CP002 OK CP003 WARN";
    final String[] t = table.split(" ");
    assertThat(Code.values()).hasSize(t.length / 2);
    for (int i = 0; i < t.length; i += 2) {
      assertThat(Code.valueOf(t[i]).status().name()).as(t[i]).isEqualTo(t[i + 1]);
    }
  }

  @Test
  void anUnknownFormatNamesTheValidOnes() {
    assertThatThrownBy(() -> OutputFormat.parse("bogus"))
        .hasMessage("invalid output format \"bogus\" (want one of: human, json, table)");
    assertThat(OutputFormat.parse("table")).isEqualTo(OutputFormat.TABLE);
  }
}
