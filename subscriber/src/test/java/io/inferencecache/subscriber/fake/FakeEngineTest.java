package io.inferencecache.subscriber.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.EventBatchDecoder;
import io.inferencecache.subscriber.decode.KvEvent;
import io.inferencecache.subscriber.index.PositionalIndex;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fake engine's payloads, checked through the decoder and the index (in-process only). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FakeEngineTest {
  private static FakeEngine.Builder inproc() {
    return FakeEngine.builder().endpoint("inproc://fake-engine-test-" + System.nanoTime());
  }

  @Test
  void storedBatchChainsEventsAndYieldsTheExpectedPrefixes() throws Exception {
    try (FakeEngine engine = inproc().blockSize(16).numBlocks(5).events(2).startToken(1).bind()) {
      final EventBatch batch = new EventBatchDecoder().decode(engine.storedPayload());

      assertThat(batch.timestampSeconds()).isZero();
      assertThat(batch.events()).hasSize(2);
      final KvEvent.BlockStored first = (KvEvent.BlockStored) batch.events().get(0);
      final KvEvent.BlockStored second = (KvEvent.BlockStored) batch.events().get(1);
      assertThat(first.blockHashes()).hasSize(3);
      assertThat(first.parentBlockHash()).isNull();
      assertThat(second.blockHashes()).hasSize(2);
      assertThat(second.parentBlockHash())
          .isEqualTo(Fingerprint.toWire(FakeEngine.fakeBlockHash(2)));
      assertThat(second.blockHashes().get(0))
          .isEqualTo(Fingerprint.toWire(FakeEngine.FAKE_HASH_BASE + 3));
      assertThat(first.loraId()).isEmpty();

      final PositionalIndex index = new PositionalIndex();
      final List<PrefixRecord> records = new java.util.ArrayList<>();
      for (final KvEvent e : batch.events()) {
        records.addAll(index.stored((KvEvent.BlockStored) e, ""));
      }
      final List<FakeEngine.Expectation> expected = engine.expectations();
      assertThat(expected).hasSize(5);
      assertThat(expected.get(0).prefixHash())
          .isEqualTo(Long.parseUnsignedLong("16863443419780771464"));
      assertThat(expected.get(1).prefixHash())
          .isEqualTo(Long.parseUnsignedLong("12466389667045779788"));
      for (int i = 0; i < expected.size(); i++) {
        assertThat(records.get(i).prefixHash()).isEqualTo(expected.get(i).wire());
        assertThat(records.get(i).tokenCount()).isEqualTo(expected.get(i).tokenCount());
      }
    }
  }

  @Test
  void omittedTokensAndLoraId() throws Exception {
    try (FakeEngine engine = inproc().omitTokenIds(true).loraId(3).bind()) {
      final KvEvent.BlockStored stored =
          (KvEvent.BlockStored)
              new EventBatchDecoder().decode(engine.storedPayload()).events().get(0);

      assertThat(stored.tokenIds()).isEmpty();
      assertThat(stored.blockSize()).isEqualTo(128);
      assertThat(stored.loraId()).hasValue(3);
    }
  }

  @Test
  void sequenceCanSkipAndRestart() {
    try (FakeEngine engine = inproc().bind()) {
      engine.publishStored();
      engine.publishStored();
      assertThat(engine.nextSequence()).isEqualTo(2);
      engine.injectGap(3);
      assertThat(engine.nextSequence()).isEqualTo(5);
      engine.simulateRestart();
      assertThat(engine.nextSequence()).isZero();
    }
  }

  @Test
  void validatesOptions() {
    assertThatThrownBy(() -> inproc().blockSize(0).bind()).hasMessageContaining("positive");
    assertThatThrownBy(() -> inproc().numBlocks(2).events(3).bind())
        .hasMessageContaining("events must be in [1, 2]");
    assertThatThrownBy(() -> inproc().startToken(-1).bind()).hasMessageContaining("start token");
    assertThatThrownBy(() -> inproc().blockSize(1 << 20).numBlocks(1 << 5).bind())
        .hasMessageContaining("must not exceed");
  }
}
