package io.inferencecache.controlplane.cli;

import io.inferencecache.controlplane.server.core.LogConfigurer;
import io.inferencecache.subscriber.fake.FakeEngine;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fake-engine}: publishes vLLM-format KV-event batches over ZMQ (a test tool for the
 * subscriber), printing on standard output the prefix hashes and token counts a server should end
 * up with ({@code EXPECT ...} lines; logs go to standard error). Bind it to loopback.
 */
@Command(
    name = "fake-engine",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Publish fake vLLM KV-event batches over ZMQ (test tool).")
public final class FakeEngineCommand implements Callable<Integer> {
  @Option(
      names = "--endpoint",
      paramLabel = "URL",
      description = "ZMQ PUB bind endpoint (default ${DEFAULT-VALUE}).")
  String endpoint = FakeEngine.ENDPOINT_DEFAULT;

  @Option(names = "--topic", description = "Topic (default ${DEFAULT-VALUE}).")
  String topic = "kv-events";

  @Option(names = "--block-size", description = "Tokens per block (default ${DEFAULT-VALUE}).")
  int blockSize = 128;

  @Option(
      names = "--num-blocks",
      description = "Blocks in total, chained across events (default ${DEFAULT-VALUE}).")
  int numBlocks = 1;

  @Option(
      names = "--events",
      description = "BlockStored events per batch (default ${DEFAULT-VALUE}).")
  int events = 1;

  @Option(names = "--start-token", description = "First token id (default ${DEFAULT-VALUE}).")
  int startToken;

  @Option(
      names = "--interval-ms",
      description = "Republish interval in ms (default ${DEFAULT-VALUE}).")
  long intervalMs = 500;

  @Option(names = "--omit-token-ids", description = "Send BlockStored without token ids.")
  boolean omitTokenIds;

  @Option(
      names = "--gap-after",
      description = "Skip a sequence number after this many batches (0 = never).")
  int gapAfter;

  @Option(
      names = "--restart-after",
      description = "Restart the sequence at 0 after this many batches (0 = never).")
  int restartAfter;

  @Option(names = "--batches", description = "Stop after this many batches (0 = until killed).")
  int batches;

  @Spec private CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    LogConfigurer.level("info");
    final PrintWriter out = spec.commandLine().getOut();
    try (FakeEngine engine =
        FakeEngine.builder()
            .endpoint(endpoint)
            .topic(topic)
            .blockSize(blockSize)
            .numBlocks(numBlocks)
            .events(events)
            .startToken(startToken)
            .interval(Duration.ofMillis(intervalMs))
            .omitTokenIds(omitTokenIds)
            .bind()) {
      final AtomicBoolean running = new AtomicBoolean(true);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> running.set(false)));
      int sent = 0;
      for (FakeEngine.Expectation e : engine.expectations()) {
        out.printf(
            "EXPECT prefix_hash[%d]=%s token_count=%d%n", e.index(), e.hex(), e.tokenCount());
      }
      out.flush();
      while (running.get() && (batches == 0 || sent < batches)) {
        if (gapAfter > 0 && sent == gapAfter) {
          engine.injectGap(1);
        }
        if (restartAfter > 0 && sent == restartAfter) {
          engine.simulateRestart();
        }
        engine.publishStored();
        sent++;
        Thread.sleep(intervalMs);
      }
    }
    return 0;
  }
}
