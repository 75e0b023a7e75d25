package io.inferencecache.service.server;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builders for requests and updates shared by the service tests. */
public final class Fixtures {
  public static final String TENANT = "team-a";
  public static final String MODEL = "llama-3.1-8b";
  public static final String SCHEME = "vllm";

  private Fixtures() {}

  /** An 8-byte hash distinct for each {@code i} (tag separates families of hashes). */
  public static ByteString hash(final int tag, final int i) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putInt(tag).putInt(i).array());
  }

  /** {@code n} hashes of family {@code tag}: hash(tag, 0..n-1). */
  public static List<ByteString> hashes(final int tag, final int n) {
    final List<ByteString> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(hash(tag, i));
    }
    return out;
  }

  /** A chain entry: {@code hashes} with {@code countEach} tokens per block. */
  public static PrefixEntry.Builder chainEntry(final List<ByteString> hashes, final int countEach) {
    final PrefixEntry.Builder e = PrefixEntry.newBuilder();
    for (ByteString h : hashes) {
      e.addBlockHashes(h).addBlockTokenCounts(countEach);
    }
    return e;
  }

  /** A legacy single-hash entry. */
  public static PrefixEntry.Builder legacyEntry(final ByteString hash, final int tokens) {
    return PrefixEntry.newBuilder().setPrefixHash(hash).setTokenCount(tokens);
  }

  /** An update from {@code replica} in the default tenant, model and scheme. */
  public static CacheStateUpdate.Builder update(final String replica) {
    return CacheStateUpdate.newBuilder()
        .setReplicaId(replica)
        .setTenantId(TENANT)
        .setModelId(MODEL)
        .setHashScheme(SCHEME);
  }

  /** An update holding one chain. */
  public static CacheStateUpdate chainUpdate(
      final String replica, final List<ByteString> hashes, final int countEach) {
    return update(replica).addPrefixes(chainEntry(hashes, countEach)).build();
  }

  /** An update holding one legacy key. */
  public static CacheStateUpdate legacyUpdate(
      final String replica, final ByteString hash, final int tokens) {
    return update(replica).addPrefixes(legacyEntry(hash, tokens)).build();
  }

  /** An update carrying only stats with {@code hitRate}. */
  public static CacheStateUpdate statsUpdate(final String replica, final float hitRate) {
    return update(replica).setStats(ReplicaStats.newBuilder().setHitRate(hitRate)).build();
  }

  /** A request in the default tenant, model and scheme. */
  public static LookupRouteRequest.Builder request() {
    return LookupRouteRequest.newBuilder()
        .setTenantId(TENANT)
        .setModelId(MODEL)
        .setHashScheme(SCHEME);
  }

  /** A request carrying {@code hashes} as its chain with {@code countEach} tokens per block. */
  public static LookupRouteRequest.Builder chainRequest(
      final List<ByteString> hashes, final int countEach) {
    final LookupRouteRequest.Builder b = request();
    for (ByteString h : hashes) {
      b.addBlockHashes(h).addBlockTokenCounts(countEach);
    }
    return b;
  }

  /** Tokens {@code from, from+1, ...} ({@code n} of them). */
  public static int[] tokens(final int from, final int n) {
    final int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = from + i;
    }
    return t;
  }

  public static List<Integer> boxed(final int[] t) {
    return Arrays.stream(t).boxed().toList();
  }

  /** The fingerprint chain of {@code tokens} at {@code blockSize} (wire form). */
  public static List<ByteString> tokenChain(final int[] tokens, final int blockSize) {
    final List<ByteString> out = new ArrayList<>();
    for (long h : Fingerprint.prefixHashes(tokens, blockSize)) {
      out.add(ByteString.copyFrom(Fingerprint.toWire(h)));
    }
    return out;
  }

  public static PrefixEntry.Builder tier(final PrefixEntry.Builder e, final CacheTier t) {
    return e.setTier(t);
  }

  /**
   * The AFFINITY_HINT pick of docs/behaviour.md#affinity for a chain seed, computed independently:
   * candidates sorted by unsigned bytes, SHA-256 of {@code u32be(len) ‖ hash} per block, first 8
   * bytes big-endian as an unsigned modulo.
   */
  public static String expectedAffinity(final List<ByteString> chain, final List<String> candidates)
      throws Exception {
    final MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (ByteString h : chain) {
      sha.update(ByteBuffer.allocate(4).putInt(h.size()).array());
      sha.update(h.toByteArray());
    }
    return pick(sha.digest(), candidates);
  }

  /** As {@link #expectedAffinity} for an exact prefix_hash seed. */
  public static String expectedAffinityExact(
      final ByteString prefixHash, final List<String> candidates) throws Exception {
    final MessageDigest sha = MessageDigest.getInstance("SHA-256");
    return pick(sha.digest(prefixHash.toByteArray()), candidates);
  }

  private static String pick(final byte[] d, final List<String> candidates) {
    final List<String> sorted = new ArrayList<>(candidates);
    sorted.sort(
        (a, b) ->
            Arrays.compareUnsigned(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
    final long v = ByteBuffer.wrap(d, 0, 8).getLong();
    return sorted.get((int) Long.remainderUnsigned(v, sorted.size()));
  }
}
