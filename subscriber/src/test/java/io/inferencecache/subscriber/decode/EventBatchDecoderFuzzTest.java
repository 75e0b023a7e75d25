package io.inferencecache.subscriber.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.inferencecache.subscriber.index.PositionalIndex;

/**
 * Fuzzes the subscriber's msgpack EventBatch decoder: whatever the bytes, {@link
 * EventBatchDecoder#decode} returns a well-formed batch or throws {@link EventDecodeException} —
 * nothing else — and a decoded batch goes through the positional index (the next stage) without an
 * exception.
 *
 * <p>Regression mode (CI) replays {@code EventBatchDecoderFuzzTestInputs/decode/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class EventBatchDecoderFuzzTest {
  private static final EventBatchDecoder DECODER = new EventBatchDecoder();
  private static final PositionalIndex POSITIONS = new PositionalIndex(1024);

  @FuzzTest(maxDuration = "2m")
  void decode(final byte[] bytes) {
    final EventBatch batch;
    try {
      batch = DECODER.decode(bytes);
    } catch (EventDecodeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    assertThat(batch.timestampMicros()).isNotNegative();
    for (KvEvent e : batch.events()) {
      if (e instanceof KvEvent.BlockStored s) {
        assertThat(s.blockSize()).isPositive();
        assertThat(s.blockHashes()).doesNotContainNull();
        assertThat(s.tokenIds()).isNotNull();
        assertThat(s.loraId()).isNotNull();
        POSITIONS.stored(s, "");
      } else if (e instanceof KvEvent.BlockRemoved r) {
        assertThat(r.blockHashes()).doesNotContainNull();
        POSITIONS.removed(r);
      } else {
        POSITIONS.clear();
      }
    }
  }
}
