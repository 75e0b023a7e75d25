package io.inferencecache.service.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexSnapshot;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes what a ReportCacheState / PublishEvent stream hands the server, the way the service
 * handles each message: {@link IngestMessage.Marshaller#parse} (never throws; bad bytes become an
 * error naming the problem), {@link IngestRules#admit} (drops bad entries and updates) and an
 * ingest into a small in-memory index (capped, so eviction runs too), whose secondary counts must
 * stay consistent. Never an unexpected exception.
 *
 * <p>Regression mode (CI) replays {@code IngestFuzzTestInputs/<method>/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class IngestFuzzTest {
  static final IngestRules RULES = new IngestRules(System::nanoTime);
  static CacheIndex index;
  static long runs;

  @BeforeAll
  static void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(2_000));
    index.start();
  }

  @AfterAll
  static void close() {
    index.close();
  }

  @FuzzTest(maxDuration = "2m")
  void reportCacheState(final byte[] bytes) {
    final IngestMessage m = new IngestMessage.Marshaller().parse(new ByteArrayInputStream(bytes));
    assertThat(m.update() == null).as("exactly one of update / error").isEqualTo(m.error() != null);
    if (m.update() == null) {
      assertThat(m.error()).isNotBlank();
      return;
    }
    final IngestUpdate admitted = RULES.admit(m.update());
    if (admitted == null) {
      return; // the whole update is dropped, as the service does
    }
    index.ingest(admitted);
    checkIndex();
  }

  @FuzzTest(maxDuration = "2m")
  void publishEvent(final byte[] bytes) {
    final CacheEvent e;
    try {
      e = CacheEvent.parseFrom(bytes);
    } catch (InvalidProtocolBufferException bad) {
      return; // gRPC answers INTERNAL for an unparseable request before the handler runs
    }
    if (CacheIndex.RESERVED_TENANT.equals(e.getTenantId())) {
      return; // as the service: never applied over gRPC
    }
    index.applyEvent(IngestMapper.toEvent(e));
    checkIndex();
  }

  private static void checkIndex() {
    if ((++runs & 63) == 0) {
      assertThat(index.verifyCounts()).isEmpty();
    }
    final IndexSnapshot s = index.snapshot();
    assertThat(s.totalPrefixes()).isBetween(0L, 2_000L);
    assertThat(index.totalEntries()).isBetween(0L, 2_000L);
  }
}
