package io.inferencecache.perf.subscriber;

import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.EventBatchDecoder;
import io.inferencecache.subscriber.decode.EventDecodeException;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.sink.UpdateSink;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One subscriber's event path without the sockets: msgpack EventBatch decoding, the positional
 * index (fingerprinting every block's tokens), and the reporter's batching into updates handed to a
 * sink that only counts them. One operation = one block event (a BlockStored of {@code blocks}
 * blocks is {@code blocks} operations). Issue target: ≥ 200k block events/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 3)
public class SubscriberThroughputBenchmark {
  static final int BLOCKS = 16;

  @Param({"16"})
  int blockSize;

  private final EventBatchDecoder decoder = new EventBatchDecoder();
  private byte[][] payloads;
  private int next;
  private Reporter reporter;
  private long reported;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    final SplittableRandom rnd = new SplittableRandom(42);
    payloads = new byte[1024][];
    for (int p = 0; p < payloads.length; p++) {
      try (MessageBufferPacker m = MessagePack.newDefaultBufferPacker()) {
        m.packArrayHeader(2).packDouble(1.7e9 + p).packArrayHeader(1);
        m.packArrayHeader(6).packString(EventBatchDecoder.BLOCK_STORED);
        m.packArrayHeader(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          m.packLong(rnd.nextLong());
        }
        m.packNil(); // fresh root
        m.packArrayHeader(BLOCKS * blockSize);
        for (int t = 0; t < BLOCKS * blockSize; t++) {
          m.packLong(rnd.nextInt(1 << 17));
        }
        m.packInt(blockSize);
        m.packNil();
        payloads[p] = m.toByteArray();
      }
    }
    final SubscriberConfig config =
        SubscriberConfig.builder()
            .replicaId("bench-0")
            .modelId("llama")
            .tenantId("bench")
            .engineMetricsUrl("")
            .build();
    reporter =
        new Reporter(
            config,
            new UpdateSink() {
              @Override
              public void report(final SubscriberUpdate update) {
                reported += update.prefixes().size();
              }

              @Override
              public void prefixEvicted(
                  final byte[] prefixHash, final String adapterId, final long timestampMicros) {}

              @Override
              public void allCleared(final long timestampMicros) {}

              @Override
              public void stats(final StatsSample sample, final long timestampMicros) {}
            });
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    reporter.close();
    if (reported == 0) {
      throw new IllegalStateException("the reporter handed nothing to the sink");
    }
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS)
  public void decodeIndexAndReport(final Blackhole bh) throws EventDecodeException {
    final EventBatch batch = decoder.decode(payloads[next]);
    next = (next + 1) & (payloads.length - 1);
    reporter.accept(batch);
    bh.consume(batch);
  }
}
