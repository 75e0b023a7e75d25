package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.service.ingest.IngestMapper;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the zero-copy LookupRouteRequest parser ({@link LookupCall#parse}, through the route's
 * request marshaller and at a non-zero offset of a larger buffer) and the answer built from it:
 * never an exception, a malformed request answers NO_HINT, the encoded response is a valid
 * LookupRouteResponse naming only replicas that were reported, and whatever both this parser and
 * protobuf accept is read the same way.
 *
 * <p>Regression mode (CI) replays {@code LookupRouteRequestFuzzTestInputs/parseAndAnswer/}; fuzz
 * with {@code JAZZER_FUZZ=1} (docs/reliability.md).
 */
class LookupRouteRequestFuzzTest {
  static final Set<String> REPORTED = Set.of("vllm-0", "vllm-1");
  static CacheIndex index;
  static ZeroCopyLookupRoute route;
  static DeadlineWatchdog watchdog;

  @BeforeAll
  static void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    // Chains the seeds look up: hash(1, 0..7) on vllm-0, hash(1, 0..3) also on vllm-1.
    index.ingest(IngestMapper.toIngest(Fixtures.chainUpdate("vllm-0", Fixtures.hashes(1, 8), 16)));
    index.ingest(IngestMapper.toIngest(Fixtures.chainUpdate("vllm-1", Fixtures.hashes(1, 4), 16)));
    index.ingest(IngestMapper.toIngest(Fixtures.legacyUpdate("vllm-1", Fixtures.hash(2, 0), 64)));
    final LookupRouteHandler handler =
        new LookupRouteHandler(
            index, PromptTokenizer.NONE, 16, LookupMetrics.NOOP, System::nanoTime);
    watchdog = DeadlineWatchdog.start(System::nanoTime);
    route = new ZeroCopyLookupRoute(handler, LookupMetrics.NOOP, System::nanoTime, 4, watchdog);
  }

  @AfterAll
  static void close() {
    watchdog.close();
    index.close();
  }

  @FuzzTest(maxDuration = "2m")
  void parseAndAnswer(final byte[] bytes) throws IOException {
    // 1. As the transport delivers it (copy path of the request marshaller), then answered.
    final LookupCall c = route.parse(new ByteArrayInputStream(bytes));
    final boolean malformed = c.malformed;
    route.answer(c, System.nanoTime());
    final byte[] encoded = c.readAllBytes(); // drains: the call goes back to the pool
    final LookupRouteResponse response = LookupRouteResponse.parseFrom(encoded);
    if (malformed) {
      assertThat(response.getReasonCode()).isEqualTo(ReasonCodes.NO_HINT);
      assertThat(response.getReplicaScoresList()).isEmpty();
    }
    assertThat(response.getReasonCode()).isNotEmpty();
    for (ReplicaScore s : response.getReplicaScoresList()) {
      assertThat(REPORTED).contains(s.getReplicaId());
    }

    // 2. In place, at an offset inside a larger buffer (the zero-copy view path).
    final byte[] padded = new byte[bytes.length + 6];
    Arrays.fill(padded, (byte) 0xFF);
    System.arraycopy(bytes, 0, padded, 3, bytes.length);
    final LookupCall d = new LookupCall(null).resetCall();
    final boolean ok =
        d.parse(new UnsafeBuffer(padded), 3, bytes.length, LookupRouter.MAX_PROMPT_TEXT_BYTES);
    assertThat(ok).isEqualTo(!d.malformed).isEqualTo(!malformed);

    // 3. Differential: what both parsers accept, they read alike.
    LookupRouteRequest proto;
    try {
      proto = LookupRouteRequest.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      proto = null;
    }
    if (proto != null && ok) {
      LookupCallParserTest.assertSameInput(d.input, LookupCallParserTest.viaCodec(proto));
    }
  }
}
