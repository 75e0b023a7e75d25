package io.inferencecache.service.lookup;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;

/**
 * The default-protobuf path of LookupRoute: generated message objects in, generated message objects
 * out. Kept for clients of the generated stubs in process and as the baseline the zero-copy path is
 * measured against.
 */
public final class ProtoLookupCodec {
  private ProtoLookupCodec() {}

  /** Fills {@code in} from a parsed request. */
  public static void fill(final LookupRouteRequest req, final RouteRequest in) {
    in.reset();
    final LookupRequest q = in.request();
    q.keys(req.getTenantId(), req.getModelId(), req.getHashScheme(), req.getAdapterId());
    final ByteString prefix = req.getPrefixHash();
    q.exact(prefix.toByteArray(), req.getPrefixTokenCount());
    for (int i = 0; i < req.getBlockHashesCount(); i++) {
      q.addBlockHash(req.getBlockHashes(i).toByteArray());
    }
    for (int i = 0; i < req.getBlockTokenCountsCount(); i++) {
      q.addBlockTokenCount(req.getBlockTokenCounts(i));
    }
    for (int i = 0; i < req.getTokenIdsCount(); i++) {
      in.addTokenId(req.getTokenIds(i));
    }
    if (!req.getPromptText().isEmpty()) {
      in.prompt(req.getPromptText(), LookupRouter.MAX_PROMPT_TEXT_BYTES);
    }
    if (req.hasSlo()) {
      q.ttftMs(req.getSlo().getTtftMs());
    }
    q.maxReplicas(req.getMaxReplicas());
  }

  /** Builds the response message from the router's result. */
  public static LookupRouteResponse toProto(final RouteResult out, final String requestAdapterId) {
    final LookupRouteResponse.Builder b =
        LookupRouteResponse.newBuilder()
            .setReasonCode(out.reasonCode())
            .setLookupLatencyUs(out.latencyMicros());
    for (int i = 0; i < out.scoreCount(); i++) {
      b.addReplicaScores(
          ReplicaScore.newBuilder()
              .setReplicaId(out.replicaName(i))
              .setScore(out.score(i))
              .setMatchedTokens(out.matchedTokens(i))
              .setEstimatedCacheHitProb(out.estimatedCacheHitProb(i))
              .setTier(tier(out.tier(i))));
    }
    for (int i = 0; i < out.echoCount(); i++) {
      b.addTokenIds(out.echoToken(i));
    }
    if (out.echoAdapter()) {
      b.setAdapterId(requestAdapterId);
    }
    return b.build();
  }

  /** Wire tier → enum: T1/T2/T3 as is, anything else unspecified. */
  public static CacheTier tier(final int wireTier) {
    return switch (wireTier) {
      case 1 -> CacheTier.CACHE_TIER_T1;
      case 2 -> CacheTier.CACHE_TIER_T2;
      case 3 -> CacheTier.CACHE_TIER_T3;
      default -> CacheTier.CACHE_TIER_UNSPECIFIED;
    };
  }
}
