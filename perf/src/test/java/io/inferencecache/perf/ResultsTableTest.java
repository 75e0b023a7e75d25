package io.inferencecache.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine table: the engine and the reference side by side from a small fixture of results. */
class ResultsTableTest {
  @TempDir Path dir;

  /** One JMH SampleTime lookup result (µs) with p50, p99 and gc.alloc.rate.norm. */
  static String lookup(
      final String bench,
      final String impl,
      final String params,
      final double p50,
      final double p99,
      final double alloc) {
    return String.format(
        java.util.Locale.ROOT,
        "{\"benchmark\":\"io.inferencecache.perf.%s.lookupRoute\",\"mode\":\"sample\","
            + "\"params\":{\"impl\":\"%s\",%s},\"primaryMetric\":{\"score\":%s,\"scoreUnit\":"
            + "\"us/op\",\"scorePercentiles\":{\"50.0\":%s,\"99.0\":%s}},\"secondaryMetrics\":"
            + "{\"gc.alloc.rate.norm\":{\"score\":%s,\"scoreUnit\":\"B/op\"}}}",
        bench,
        impl,
        params,
        p50,
        p50,
        p99,
        alloc);
  }

  static String scored(
      final String benchMethod,
      final String impl,
      final String params,
      final double score,
      final String unit) {
    return String.format(
        java.util.Locale.ROOT,
        "{\"benchmark\":\"io.inferencecache.perf.%s\",\"params\":{\"impl\":\"%s\"%s},"
            + "\"primaryMetric\":{\"score\":%s,\"scoreUnit\":\"%s\"}}",
        benchMethod,
        impl,
        params,
        score,
        unit);
  }

  /**
   * A JMH file: every lookup shape (Mooncake engine only), LFU and newHolder ingest engine only.
   */
  static String jmhFixture() {
    return "["
        + String.join(
            ",",
            lookup("SingleHolderLookupBenchmark", "offheap", "\"keys\":\"800000\"", 0.24, 2.0, 0.4),
            lookup("SingleHolderLookupBenchmark", "onheap", "\"keys\":\"800000\"", 2.0, 10, 600),
            lookup("PinnedChainLookupBenchmark", "offheap", "\"pinnedChains\":\"781\"", 20, 80, 18),
            lookup(
                "PinnedChainLookupBenchmark",
                "onheap",
                "\"pinnedChains\":\"781\"",
                100,
                6000,
                44500),
            lookup("LongChainLookupBenchmark", "offheap", "\"longChains\":\"256\"", 100, 40, 300),
            lookup(
                "LongChainLookupBenchmark", "onheap", "\"longChains\":\"256\"", 1500, 9000, 210000),
            lookup("MooncakeLookupBenchmark", "offheap", "\"trace\":\"conversation\"", 6, 38, 12),
            scored(
                "LfuCreditBenchmark.lookupOnly",
                "offheap",
                ",\"pinnedChains\":\"781\"",
                100_000,
                "ns/op"),
            scored(
                "LfuCreditBenchmark.lookupAndCredit",
                "offheap",
                ",\"pinnedChains\":\"781\"",
                202_400,
                "ns/op"),
            scored(
                "IngestBenchmark.ingest",
                "offheap",
                ",\"mode\":\"refresh\",\"refreshChains\":\"781\"",
                6_000_000,
                "ops/s"),
            scored(
                "IngestBenchmark.ingest",
                "onheap",
                ",\"mode\":\"refresh\",\"refreshChains\":\"781\"",
                800_000,
                "ops/s"),
            scored(
                "IngestBenchmark.ingest",
                "offheap",
                ",\"mode\":\"newKeys\",\"newKeysMap\":" + "\"reused\"",
                2_000_000,
                "ops/s"),
            scored(
                "IngestBenchmark.ingest", "offheap", ",\"mode\":\"newHolder\"", 200_000, "ops/s"))
        + "]";
  }

  static String memoryFixture() {
    return "["
        + String.join(
            ",",
            memory("pinned", "offheap", 23.5, 18.7),
            memory("pinned", "onheap", 110, 110),
            memory("pinned", "offheap(hint=1)", 67.7, 19.0),
            memory("mooncake", "offheap", 60.8, 46.7),
            memory("mooncake", "onheap", 308, 308))
        + "]";
  }

  private static String memory(
      final String shape, final String impl, final double allocated, final double used) {
    return String.format(
        java.util.Locale.ROOT,
        "{\"shape\":\"%s\",\"impl\":\"%s\",\"holderBlocks\":%d,\"bytesPerHolderBlock\":%s,"
            + "\"usedPerHolderBlock\":%s}",
        shape,
        impl,
        shape.equals("pinned") ? 12_800_000 : 249_185,
        allocated,
        used);
  }

  static final String PROBE =
      "shape     impl            lookups       B/lookup\n"
          + "pinned    offheap          100000           0.00\n"
          + "pinned    onheap           100000       44488.00\n"
          + "single    offheap          100000          16.50\n";

  private String render() throws IOException {
    final Path jmh = Files.writeString(dir.resolve("jmh-x.json"), jmhFixture());
    final Path mem = Files.writeString(dir.resolve("memory-x.json"), memoryFixture());
    final Path probe =
        Files.writeString(dir.resolve("allocation-x.txt"), PROBE, StandardCharsets.UTF_8);
    return ResultsTable.renderFiles(jmh.toString(), mem.toString(), probe.toString());
  }

  /**
   * The cells of the row whose metric is {@code metric} and whose shape starts with {@code shape}.
   */
  static String[] row(final String table, final String metric, final String shape) {
    return Arrays.stream(table.split("\n"))
        .filter(l -> l.startsWith("| ") && l.endsWith(" |"))
        .map(l -> l.substring(2, l.length() - 2).split(" \\| "))
        .filter(c -> c.length > 1 && c[0].equals(metric) && c[1].startsWith(shape))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no row " + metric + " / " + shape + " in\n" + table));
  }

  @Test
  void everyLookupRowShowsTheEngineAndTheReferenceWithTheirRatioTheTargetAndTheVerdict()
      throws IOException {
    final String t = render();
    assertThat(t).startsWith(ResultsTable.HEADER);
    assertThat(row(t, "1-block single-holder hit p50", "800000 keys"))
        .containsExactly(
            "1-block single-holder hit p50",
            "800000 keys × 1 holder",
            "240 ns",
            "2.00 µs",
            "0.12×",
            "≤ 300 ns",
            "yes");
    assertThat(row(t, "64-block / 16-holder full match p50", "pinned"))
        .containsExactly(
            "64-block / 16-holder full match p50",
            "pinned, 781 chains (800k hb)",
            "20.0 µs",
            "100.0 µs",
            "0.20×",
            "≤ 2.00 µs",
            "**no**");
    assertThat(row(t, "64-block / 16-holder full match p99", "pinned"))
        .containsSequence("80.0 µs", "6.00 ms", "0.013×", "≤ 10.0 µs", "**no**");
    assertThat(row(t, "1,024-block chain p99", "long"))
        .containsSequence("40.0 µs", "9.00 ms")
        .endsWith("≤ 50.0 µs", "yes");
    assertThat(row(t, "1,024-block chain p50", "long")).endsWith("—", "—");
  }

  @Test
  void aMissingImplementationShowsADashAndNoRatio() throws IOException {
    assertThat(row(render(), "Mooncake request chain p99", "mooncake"))
        .containsExactly(
            "Mooncake request chain p99",
            "mooncake conversation trace, 8 replicas",
            "38.0 µs",
            "—",
            "—",
            "≤ 10.0 µs",
            "**no**");
  }

  @Test
  void lfuCreditIsTheDifferenceOverTheMatchedHolderBlocksPerImplementation() throws IOException {
    // Engine: (202,400 − 100,000) ns ÷ 1,024 = 100 ns; the reference did not run.
    assertThat(row(render(), "LFU credit per matched holder-block", "pinned"))
        .containsExactly(
            "LFU credit per matched holder-block",
            "pinned, 781 chains, LFU tenant; (lookupAndCredit − lookupOnly) ÷ 1,024",
            "100 ns",
            "—",
            "—",
            "—",
            "—");
  }

  @Test
  void ingestRowsCompareThroughputAgainstTheirTargets() throws IOException {
    final String t = render();
    assertThat(row(t, "ingest block upserts/s, 1 writer (refresh)", "pinned"))
        .containsExactly(
            "ingest block upserts/s, 1 writer (refresh)",
            "pinned, 781 chains",
            "6.00M/s",
            "800k/s",
            "7.50×",
            "≥ 5.00M/s",
            "yes");
    assertThat(row(t, "ingest block upserts/s, 1 writer (newKeys)", "new keys, one index"))
        .endsWith("≥ 3.00M/s", "**no**");
    assertThat(row(t, "ingest block upserts/s, 1 writer (newHolder)", "a holder"))
        .containsSequence("200k/s", "—", "—", "—", "—");
  }

  @Test
  void allocationIsJudgedByTheExactProbeNotByJmh() throws IOException {
    final String t = render();
    assertThat(row(t, "allocation per lookup (JMH gc.alloc.rate.norm)", "pinned"))
        .containsSequence("18.0 B/op", "44500 B/op")
        .endsWith("0 B (judged by the exact row)", "—");
    assertThat(row(t, "allocation per lookup, exact (AllocationProbe)", "pinned"))
        .containsSequence("0.00 B", "44488.00 B", "—", "0 B", "yes");
    assertThat(row(t, "allocation per lookup, exact (AllocationProbe)", "single"))
        .containsSequence("16.50 B", "—", "—")
        .endsWith("**no**");
  }

  @Test
  void memoryRowsShowAllocatedBytesOfBothAndTheSizedVariant() throws IOException {
    final String t = render();
    assertThat(row(t, "bytes per holder-block, allocated", "pinned"))
        .containsExactly(
            "bytes per holder-block, allocated",
            "pinned (12.80M hb)",
            "23.5 B",
            "110 B",
            "0.21×",
            "≤ 24.0 B",
            "yes");
    assertThat(t).doesNotContain("bytes per holder-block, used");
    assertThat(row(t, "bytes per holder-block, allocated — sized (hint=1)", "pinned"))
        .containsSequence("67.7 B", "110 B", "0.62×")
        .endsWith("≤ 24.0 B", "**no**");
    assertThat(row(t, "bytes per holder-block, allocated", "mooncake"))
        .containsSequence("60.8 B", "308 B", "0.20×", "≤ 32.0 B", "**no**");
  }
}
