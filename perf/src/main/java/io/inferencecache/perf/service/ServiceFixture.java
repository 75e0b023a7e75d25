package io.inferencecache.perf.service;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.perf.engine.IndexUnderTest;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.InferenceCacheService;
import java.util.SplittableRandom;

/**
 * The LookupRoute stack as the server assembles it — a started {@link CacheIndex}, the {@link
 * LookupRouteHandler} (no tokenizer, block size 16, no-op metrics, {@code System.nanoTime}) and the
 * {@link InferenceCacheService} — over a synthetic chain workload: {@code chains} chains of 64
 * blocks (8-byte hashes, 16 tokens a block), each held in full by {@code holders} of {@code
 * replicas} replicas, ingested directly into the index. Requests are serialized LookupRouteRequests
 * for whole chains (every one a full match by its holders).
 */
public final class ServiceFixture implements AutoCloseable {
  public static final int BLOCKS = SyntheticChains.PINNED_BLOCKS;
  public static final int TOKENS_PER_BLOCK = SyntheticChains.PINNED_TOKENS_PER_BLOCK;

  public final SyntheticChains workload;
  public final CacheIndex index;
  public final LookupRouteHandler handler;
  public final InferenceCacheService service;

  private ServiceFixture(final SyntheticChains w) {
    this.workload = w;
    this.index = CacheIndex.open(IndexUnderTest.configFor(w));
    boolean ok = false;
    try {
      w.forEachUpdate(index::ingest);
      if (index.totalEntries() != w.holderBlocks()) {
        throw new IllegalStateException(
            "index holds " + index.totalEntries() + " entries, expected " + w.holderBlocks());
      }
      index.start();
      this.handler =
          new LookupRouteHandler(
              index, PromptTokenizer.NONE, TOKENS_PER_BLOCK, LookupMetrics.NOOP, System::nanoTime);
      this.service =
          new InferenceCacheService(index, handler, LookupMetrics.NOOP, System::nanoTime, null);
      ok = true;
    } finally {
      if (!ok) {
        index.close();
      }
    }
  }

  /** Builds the index ({@code chains × 64 × holders} holder-blocks) and the service over it. */
  public static ServiceFixture build(final int chains, final int holders, final int replicas) {
    return new ServiceFixture(workload(chains, holders, replicas));
  }

  /** The workload shape (no index): what a client needs to make matching requests. */
  public static SyntheticChains workload(final int chains, final int holders, final int replicas) {
    return new SyntheticChains("service", chains, BLOCKS, replicas, holders, TOKENS_PER_BLOCK);
  }

  /** The serialized LookupRouteRequest for the whole of chain {@code c} of {@code w}. */
  public static byte[] request(final SyntheticChains w, final int c) {
    return request(w, c, 0);
  }

  /**
   * The serialized LookupRouteRequest for the whole of chain {@code c} of {@code w}, asking for at
   * most {@code maxReplicas} replicas (0: the field is not sent, every replica answers).
   */
  public static byte[] request(final SyntheticChains w, final int c, final int maxReplicas) {
    final LookupRouteRequest.Builder b =
        LookupRouteRequest.newBuilder()
            .setTenantId(Workload.TENANT)
            .setModelId(Workload.MODEL)
            .setHashScheme(Workload.SCHEME)
            .setMaxReplicas(maxReplicas);
    for (int blk = 0; blk < BLOCKS; blk++) {
      b.addBlockHashes(ByteString.copyFrom(Workload.hashOf(w.blockHash(c, blk))));
      b.addBlockTokenCounts(TOKENS_PER_BLOCK);
    }
    return b.build().toByteArray();
  }

  /** {@code n} serialized requests of {@code w} for chains picked at random (seeded). */
  public static byte[][] requests(final SyntheticChains w, final int n, final long seed) {
    return requests(w, n, seed, 0);
  }

  /** As {@link #requests(SyntheticChains, int, long)}, each asking for {@code maxReplicas}. */
  public static byte[][] requests(
      final SyntheticChains w, final int n, final long seed, final int maxReplicas) {
    final SplittableRandom rnd = new SplittableRandom(seed);
    final byte[][] out = new byte[n][];
    for (int i = 0; i < n; i++) {
      out[i] = request(w, rnd.nextInt(w.chains()), maxReplicas);
    }
    return out;
  }

  /** {@code n} serialized requests for chains of this fixture picked at random (seeded). */
  public byte[][] requests(final int n, final long seed) {
    return requests(workload, n, seed, 0);
  }

  /** As {@link #requests(int, long)}, each asking for at most {@code maxReplicas} replicas. */
  public byte[][] requests(final int n, final long seed, final int maxReplicas) {
    return requests(workload, n, seed, maxReplicas);
  }

  /**
   * Throws unless {@code response} is a PREFIX_MATCH scoring exactly {@code holders} replicas, each
   * with the full chain matched.
   */
  public static void check(
      final LookupRouteResponse response, final int holders, final String what) {
    final boolean ok =
        ReasonCodes.PREFIX_MATCH.equals(response.getReasonCode())
            && response.getReplicaScoresCount() == holders
            && response.getReplicaScoresList().stream()
                .allMatch(s -> s.getMatchedTokens() == BLOCKS * TOKENS_PER_BLOCK);
    if (!ok) {
      throw new IllegalStateException(
          what + ": expected PREFIX_MATCH by " + holders + " replicas, got " + response);
    }
  }

  /** {@link #check(LookupRouteResponse, int, String)} for this fixture's holders. */
  public void check(final LookupRouteResponse response, final String what) {
    check(response, workload.holders(), what);
  }

  @Override
  public void close() {
    service.shutdown();
    index.close();
  }
}
