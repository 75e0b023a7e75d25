package io.inferencecache.service.server;

import static io.inferencecache.service.server.Fixtures.chainEntry;
import static io.inferencecache.service.server.Fixtures.chainRequest;
import static io.inferencecache.service.server.Fixtures.chainUpdate;
import static io.inferencecache.service.server.Fixtures.hash;
import static io.inferencecache.service.server.Fixtures.hashes;
import static io.inferencecache.service.server.Fixtures.legacyEntry;
import static io.inferencecache.service.server.Fixtures.request;
import static io.inferencecache.service.server.Fixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.ingest.IngestRules.EntryDrop;
import io.inferencecache.service.ingest.IngestRules.Ingested;
import io.inferencecache.service.ingest.IngestRules.UpdateDrop;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * ReportCacheState over the real Netty listener on loopback with defective messages: a bad entry or
 * update is dropped and counted while everything else of the stream is ingested and acked; only
 * bytes that are not a valid CacheStateUpdate end the stream ({@link IngestRules}).
 */
@Timeout(60)
class IngestDropsIT {
  private ServiceHarness h;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger rulesLogger = (Logger) LoggerFactory.getLogger(IngestRules.class);

  @BeforeEach
  void open() throws Exception {
    h =
        new ServiceHarness(
            new ServiceHarness.Options().transport(ServiceHarness.Transport.NETTY_ZERO_COPY));
    log.start();
    rulesLogger.addAppender(log);
  }

  @AfterEach
  void close() {
    rulesLogger.detachAppender(log);
    h.close();
  }

  private String reasonFor(final List<ByteString> chain) {
    return h.stub.lookupRoute(chainRequest(chain, 16).build()).getReasonCode();
  }

  private String reasonForPrefix(final ByteString prefix) {
    return h.stub.lookupRoute(request().setPrefixHash(prefix).build()).getReasonCode();
  }

  @Test
  void anOversizedHashDropsOnlyItsEntryAndTheStreamIsAcked() throws Exception {
    final ByteString tooLong = ByteString.copyFrom(new byte[257]);
    final PrefixEntry.Builder badChain = chainEntry(hashes(3, 4), 16);
    badChain.setBlockHashes(2, tooLong);
    final CacheStateUpdate mixed =
        update("r-b")
            .addPrefixes(legacyEntry(hash(2, 0), 64))
            .addPrefixes(legacyEntry(tooLong, 64))
            .addPrefixes(badChain)
            .addPrefixes(chainEntry(hashes(4, 4), 16))
            .build();
    // h.report asserts that the final Ack is accepted: true
    h.report(chainUpdate("r-a", hashes(1, 4), 16), mixed, chainUpdate("r-c", hashes(5, 4), 16));

    assertThat(reasonFor(hashes(1, 4))).as("before the bad update").isEqualTo("PREFIX_MATCH");
    assertThat(reasonForPrefix(hash(2, 0))).as("a good entry beside it").isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(4, 4))).as("a good chain after it").isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(5, 4))).as("the update after it").isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(3, 4)))
        .as("the chain with a long block hash is dropped whole")
        .isNotEqualTo("PREFIX_MATCH");
    assertThat(h.service.ingestRules().entriesDropped(EntryDrop.HASH_TOO_LONG)).isEqualTo(2);
    assertThat(h.service.ingestRules().ingested(Ingested.UPDATES))
        .as("every update reached the index, the mixed one without its two bad entries")
        .isEqualTo(3);
    assertThat(h.service.ingestRules().ingested(Ingested.ENTRIES)).isEqualTo(1 + 2 + 1);
    assertThat(log.list)
        .singleElement()
        .satisfies(
            e -> {
              final String line = e.getFormattedMessage();
              assertThat(line)
                  .contains("event=ingest_entries_dropped")
                  .contains("tenant=\"" + Fixtures.TENANT + "\"")
                  .contains("model=\"" + Fixtures.MODEL + "\"")
                  .contains("replica=\"r-b\"")
                  .contains("dropped=2 of=4")
                  .contains("hash_too_long: prefixes[1].prefix_hash is 257 bytes (limit 256)");
            });
  }

  @Test
  void aChainWithMismatchedArraysIsDroppedAndCounted() throws Exception {
    final PrefixEntry.Builder mismatched = chainEntry(hashes(3, 4), 16).addBlockTokenCounts(16);
    h.report(
        update("r-a").addPrefixes(mismatched).addPrefixes(chainEntry(hashes(4, 4), 16)).build());
    assertThat(reasonFor(hashes(4, 4))).isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(3, 4))).isNotEqualTo("PREFIX_MATCH");
    assertThat(h.service.ingestRules().entriesDropped(EntryDrop.CHAIN_LENGTH_MISMATCH))
        .isEqualTo(1);
  }

  @Test
  void aReservedTenantUpdateIsDroppedWholeAndCounted() throws Exception {
    final CacheStateUpdate probe =
        update("r-p")
            .setTenantId(CacheIndex.RESERVED_TENANT)
            .addPrefixes(legacyEntry(hash(6, 0), 64))
            .build();
    h.report(probe, chainUpdate("r-a", hashes(1, 4), 16));
    assertThat(h.index.reservedEntries()).isZero();
    assertThat(reasonFor(hashes(1, 4))).isEqualTo("PREFIX_MATCH");
    assertThat(h.service.ingestRules().updatesDropped(UpdateDrop.RESERVED_TENANT)).isEqualTo(1);
    assertThat(h.service.ingestRules().ingested(Ingested.UPDATES)).isEqualTo(1);
    assertThat(h.service.ingestRules().ingested(Ingested.ENTRIES)).isEqualTo(1);
  }

  @Test
  void invalidUtf8StillEndsTheStreamWithInvalidArgument() throws Exception {
    final byte[] bad =
        InferenceCacheIngestTest.patch(
            chainUpdate("RID!", hashes(2, 4), 16).toByteArray(),
            "RID!",
            InferenceCacheIngestTest.INVALID_UTF8);
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<byte[]> in =
        ClientCalls.asyncClientStreamingCall(
            h.channel.newCall(InferenceCacheIngestTest.RAW_REPORT, CallOptions.DEFAULT),
            InferenceCacheIngestTest.observer(done));
    in.onNext(chainUpdate("r-a", hashes(1, 4), 16).toByteArray());
    in.onNext(bad);
    in.onNext(chainUpdate("r-c", hashes(3, 4), 16).toByteArray());
    in.onCompleted();
    final Status s = InferenceCacheIngestTest.statusOf(done);
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("replica_id is not valid UTF-8");
    assertThat(reasonFor(hashes(1, 4))).isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(3, 4)))
        .as("the call ended at the bad message")
        .isNotEqualTo("PREFIX_MATCH");
  }
}
