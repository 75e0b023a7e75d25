package io.inferencecache.service.pd;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.service.ingest.IngestMapper;
import io.inferencecache.service.server.Fixtures;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes LookupPDRoute's request fields through the service's handler ({@link LookupPdRoutes}): the
 * new fields (block_hashes, block_token_counts, hash_scheme, adapter_id, prompt_token_count) and
 * upstream's (tenant, model, legacy key, pd_topology_ref), built field by field from the fuzzer's
 * data and, in {@link #wireBytes}, parsed from raw bytes. Whatever they hold: no exception, a known
 * reason code, both replica ids or neither and only members of the topology, a message exactly on a
 * miss, NO_HINT for a malformed chain.
 *
 * <p>Regression mode (CI) replays {@code LookupPdRouteFuzzTestInputs/<method>/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class LookupPdRouteFuzzTest {
  static final Set<String> REASONS =
      Set.of(
          ReasonCodes.PD_PAIR,
          ReasonCodes.PD_DECODE_LOCAL,
          ReasonCodes.PD_TOPOLOGY_NOT_FOUND,
          ReasonCodes.PD_TOPOLOGY_AMBIGUOUS,
          ReasonCodes.PD_POOL_EMPTY,
          ReasonCodes.NO_HINT);
  static final Set<String> MEMBERS = Set.of("vllm-0", "vllm-1");
  static CacheIndex index;
  static LookupPdRoutes routes;

  @BeforeAll
  static void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    // The fixtures' tenant and model: hash(1, 0..7) on vllm-0, hash(1, 0..3) on vllm-1.
    index.ingest(IngestMapper.toIngest(Fixtures.chainUpdate("vllm-0", Fixtures.hashes(1, 8), 16)));
    index.ingest(IngestMapper.toIngest(Fixtures.chainUpdate("vllm-1", Fixtures.hashes(1, 4), 16)));
    final String tenant = Fixtures.TENANT;
    final PdTopology t =
        new PdTopology(
            tenant,
            "pd",
            "Mooncake",
            48,
            null,
            0,
            List.of(new PdPool("p", "", List.of(new PdMember("vllm-0", "n0")))),
            List.of(new PdPool("d", "", List.of(new PdMember("vllm-1", "n0")))),
            List.of());
    final PdTopology twin =
        new PdTopology("twins", "a", "", 0, null, 0, t.prefillPools(), t.decodePools(), List.of());
    final PdTopology twin2 =
        new PdTopology("twins", "b", "", 0, null, 0, t.prefillPools(), t.decodePools(), List.of());
    index.pdTopologies().replace(new PdTopologySnapshot(1, List.of(t, twin, twin2)));
    routes = new LookupPdRoutes(index, System::nanoTime);
  }

  @AfterAll
  static void close() {
    index.close();
  }

  @FuzzTest(maxDuration = "2m")
  void fields(final FuzzedDataProvider data) {
    final String tenant = Fixtures.TENANT;
    final LookupPDRouteRequest.Builder q = LookupPDRouteRequest.newBuilder();
    q.setTenantId(data.consumeBoolean() ? tenant : data.consumeString(12));
    q.setModelId(data.consumeBoolean() ? Fixtures.MODEL : data.consumeString(8));
    q.setHashScheme(data.consumeBoolean() ? "vllm" : data.consumeString(6));
    q.setAdapterId(data.consumeString(4));
    q.setPdTopologyRef(
        switch (data.consumeInt(0, 3)) {
          case 0 -> "";
          case 1 -> tenant + "/pd";
          case 2 -> "twins/a";
          default -> data.consumeString(16);
        });
    q.setPromptTokenCount(data.consumeInt());
    final int hashes = data.consumeInt(0, 70);
    final int counts = data.consumeBoolean() ? hashes : data.consumeInt(0, 70);
    for (int i = 0; i < hashes; i++) {
      q.addBlockHashes(
          data.consumeBoolean() ? Fixtures.hash(1, i) : ByteString.copyFrom(data.consumeBytes(40)));
    }
    for (int i = 0; i < counts; i++) {
      q.addBlockTokenCounts(data.consumeBoolean() ? 16 : data.consumeInt());
    }
    if (data.consumeBoolean()) {
      q.setPrefixHash(ByteString.copyFrom(data.consumeBytes(40)))
          .setPrefixTokenCount(data.consumeInt());
    }
    final LookupPDRouteRequest request = q.build();
    check(request, routes.answer(request, System.nanoTime(), Long.MAX_VALUE));
  }

  @FuzzTest(maxDuration = "1m")
  void wireBytes(final byte[] bytes) {
    final LookupPDRouteRequest request;
    try {
      request = LookupPDRouteRequest.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return; // gRPC refuses it before the handler
    }
    check(request, routes.answer(request, System.nanoTime(), Long.MAX_VALUE));
  }

  static void check(final LookupPDRouteRequest q, final LookupPDRouteResponse r) {
    assertThat(REASONS).contains(r.getReasonCode());
    final boolean pair =
        r.getReasonCode().equals(ReasonCodes.PD_PAIR)
            || r.getReasonCode().equals(ReasonCodes.PD_DECODE_LOCAL);
    assertThat(r.getPrefillReplicaId().isEmpty()).isEqualTo(!pair);
    assertThat(r.getDecodeReplicaId().isEmpty()).isEqualTo(!pair);
    assertThat(r.getMessage().isEmpty()).isEqualTo(pair);
    if (pair) {
      assertThat(MEMBERS).contains(r.getPrefillReplicaId(), r.getDecodeReplicaId());
      assertThat(r.getPrefillMatchedTokens()).isNotNegative();
    }
    if (q.getBlockHashesCount() != q.getBlockTokenCountsCount()
        && !r.getReasonCode().startsWith("PD_TOPOLOGY")) {
      assertThat(r.getReasonCode()).isEqualTo(ReasonCodes.NO_HINT);
    }
  }
}
