package io.inferencecache.service.replication;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.service.ingest.IngestRules;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Stream messages applied to an index with their sequence, as the direct ingest path would. */
class ReplicatedIngestTest {
  private final CacheIndex index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
  private final IngestRules rules = new IngestRules(System::nanoTime);
  private final ReplicatedIngest ingest =
      new ReplicatedIngest(index, rules, null, () -> 10_000L, System::nanoTime);
  private final LookupResult result = new LookupResult();

  @AfterEach
  void close() {
    index.close();
  }

  private static ByteString hash(final int i) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putLong(i).array());
  }

  private static byte[] update(final String replica, final String tenant, final int... hashes) {
    final CacheStateUpdate.Builder b =
        CacheStateUpdate.newBuilder()
            .setReplicaId(replica)
            .setModelId("m")
            .setTenantId(tenant)
            .setHashScheme("vllm");
    for (int h : hashes) {
      b.addPrefixes(PrefixEntry.newBuilder().setPrefixHash(hash(h)).setTokenCount(128));
    }
    return b.build().toByteArray();
  }

  private boolean holds(final String replica, final int h) {
    index.lookup(
        new LookupRequest().reset().keys("t", "m", "vllm", "").exact(hash(h).toByteArray(), 0),
        result);
    if (result.outcome() != Outcome.PREFIX_MATCH) {
      return false;
    }
    for (int i = 0; i < result.size(); i++) {
      if (index.replicaName(result.replicaId(i)).equals(replica)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void appliesUpdatesAndEventsWithTheirSequence() {
    ingest.apply(1, StreamRecord.Kind.UPDATE, update("r1", "t", 1, 2), 9_000);
    assertThat(holds("r1", 1)).isTrue();
    assertThat(index.appliedSequence()).isEqualTo(1);
    ingest.apply(
        2,
        StreamRecord.Kind.EVENT,
        CacheEvent.newBuilder()
            .setType(CacheEvent.Type.PREFIX_EVICTED)
            .setReplicaId("r1")
            .setModelId("m")
            .setTenantId("t")
            .setPrefixHash(hash(1))
            .build()
            .toByteArray(),
        9_500);
    assertThat(holds("r1", 1)).isFalse();
    assertThat(holds("r1", 2)).isTrue();
    assertThat(index.appliedSequence()).isEqualTo(2);
    assertThat(ingest.applied()).isEqualTo(2);
    assertThat(ingest.lastLagMillis()).isEqualTo(500);
    assertThat(rules.ingested(IngestRules.Ingested.UPDATES)).isEqualTo(1);
    assertThat(rules.ingested(IngestRules.Ingested.EVENTS)).isEqualTo(1);
  }

  @Test
  void aFullStateReplacesItsReplicaOnly() {
    ingest.apply(1, StreamRecord.Kind.UPDATE, update("r1", "t", 1, 2), 0);
    ingest.apply(2, StreamRecord.Kind.UPDATE, update("r2", "t", 1), 0);
    ingest.apply(3, StreamRecord.Kind.STATE, update("r1", "t", 3), 0);
    assertThat(holds("r1", 1)).isFalse();
    assertThat(holds("r1", 2)).isFalse();
    assertThat(holds("r1", 3)).isTrue();
    assertThat(holds("r2", 1)).isTrue();
    assertThat(index.appliedSequence()).isEqualTo(3);
  }

  @Test
  void unreadableAndDroppedMessagesStillAdvanceTheSequence() {
    ingest.apply(4, null, update("r1", "t", 1), 0);
    assertThat(index.appliedSequence()).isEqualTo(4);
    assertThat(holds("r1", 1)).isFalse();
    ingest.apply(5, StreamRecord.Kind.UPDATE, new byte[] {(byte) 0xFF, 0x01}, 0);
    assertThat(index.appliedSequence()).isEqualTo(5);
    assertThat(ingest.unreadable()).isEqualTo(2);
    ingest.apply(6, StreamRecord.Kind.UPDATE, update("r1", CacheIndex.RESERVED_TENANT, 1), 0);
    assertThat(index.appliedSequence()).isEqualTo(6);
    assertThat(rules.updatesDropped(IngestRules.UpdateDrop.RESERVED_TENANT)).isEqualTo(1);
    assertThat(ingest.applied()).isEqualTo(1);
  }
}
