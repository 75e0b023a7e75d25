package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The consistent-hash fallback (docs/behaviour.md#affinity; checklist 20–27). */
class AffinityHintTest extends IndexTestSupport {
  private final MessageDigest sha = sha256();
  private final byte[] digest = new byte[32];

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** The hinted replica's name for {@code q}, or null. */
  private String hint(final LookupRequest q) {
    if (!Lookups.affinitySeedDigest(q, sha, digest)) {
      return null;
    }
    final int id = index.affinityHint(q, digest);
    return id < 0 ? null : index.replicaName(id);
  }

  private void serve(final String tenant, final String scheme, final String... replicas) {
    for (String rep : replicas) {
      ingest(update(tenant, "m", scheme, rep).legacy("own-" + rep, 16));
    }
  }

  /** The spec's pick, computed independently: candidates sorted by UTF-8 bytes, unsigned mod. */
  private static String expected(final byte[] seed, final List<String> candidates) {
    final List<String> sorted = new ArrayList<>(candidates);
    sorted.sort(
        (a, b) ->
            Arrays.compareUnsigned(
                a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    final byte[] d = sha256().digest(seed);
    final BigInteger v = new BigInteger(1, Arrays.copyOf(d, 8));
    return sorted.get(v.mod(BigInteger.valueOf(sorted.size())).intValue());
  }

  private static byte[] chainSeed(final String... hashes) {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String x : hashes) {
      final byte[] b = h(x);
      out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
      out.writeBytes(b);
    }
    return out.toByteArray();
  }

  @Test
  void noServingReplicaMeansNoHint() {
    assertThat(hint(exactReq("t", "m", "vllm", "p", 16))).isNull();
    serve("t", "vllm", "r1");
    assertThat(hint(exactReq("t", "m", "sglang", "p", 16))).isNull();
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    assertThat(hint(exactReq("t", "m", "vllm", "p", 16))).isNull();
  }

  @Test
  void emptyHashSchemeMeansNoHint() {
    serve("t", "vllm", "r1");
    assertThat(hint(exactReq("t", "m", "", "p", 16))).isNull();
  }

  @Test
  void emptySeedMeansNoHint() {
    serve("t", "vllm", "r1");
    final LookupRequest q = exactReq("t", "m", "vllm", "", 16);
    assertThat(Lookups.affinitySeedDigest(q, sha, digest)).isFalse();
    assertThat(hint(q)).isNull();
  }

  @Test
  void candidateSetIsPerHashScheme() {
    serve("t", "vllm", "v1", "v2", "v3");
    serve("t", "sglang", "s1", "s2");
    for (int i = 0; i < 200; i++) {
      assertThat(hint(exactReq("t", "m", "vllm", "seed-" + i, 16))).isIn("v1", "v2", "v3");
      assertThat(hint(exactReq("t", "m", "sglang", "seed-" + i, 16))).isIn("s1", "s2");
    }
  }

  @Test
  void sameInputsGiveTheSameReplica() {
    serve("t", "vllm", "r1", "r2", "r3", "r4", "r5");
    final String first = hint(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    for (int i = 0; i < 50; i++) {
      assertThat(hint(chainReq("t", "m", "vllm", 16, "b0", "b1"))).isEqualTo(first);
    }
  }

  @Test
  void aSingleReplicaIsAlwaysChosen() {
    serve("t", "vllm", "only");
    for (int i = 0; i < 100; i++) {
      assertThat(hint(exactReq("t", "m", "vllm", "seed-" + i, 16))).isEqualTo("only");
    }
  }

  @Test
  void spreadsSeedsEvenlyOverReplicas() {
    serve("t", "vllm", "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7");
    final Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      counts.merge(hint(exactReq("t", "m", "vllm", "seed-" + i, 16)), 1, Integer::sum);
    }
    assertThat(counts).hasSize(8);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(80, 220));
  }

  @Test
  void insertionOrderDoesNotMatter() {
    final String[] ids = {"r0", "r1", "r2", "r3", "r4", "r5", "r6"};
    serve("a", "vllm", ids);
    final String[] reversed = ids.clone();
    java.util.Collections.reverse(Arrays.asList(reversed));
    serve("b", "vllm", reversed);
    for (int i = 0; i < 200; i++) {
      assertThat(hint(exactReq("b", "m", "vllm", "seed-" + i, 16)))
          .isEqualTo(hint(exactReq("a", "m", "vllm", "seed-" + i, 16)));
    }
  }

  @Test
  void picksByUnsignedModuloOfTheSha256PrefixOverByteSortedCandidates() {
    final List<String> ids = List.of("z", "\u00E9", "a", "\uFFFF", "\uD83D\uDE00", "M", "b");
    serve("t", "vllm", ids.toArray(new String[0]));
    int negative = 0;
    for (int i = 0; i < 300; i++) {
      final String seed = "seed-" + i;
      if (sha256().digest(h(seed))[0] < 0) {
        negative++; // a signed modulo would pick differently for these
      }
      assertThat(hint(exactReq("t", "m", "vllm", seed, 16)))
          .as(seed)
          .isEqualTo(expected(h(seed), ids));
    }
    assertThat(negative).isGreaterThan(50);
  }

  @Test
  void chainSeedIsTheLengthPrefixedConcatenationOfTheBlockHashes() {
    final LookupRequest q = chainReq("t", "m", "vllm", 16, "b0", "block-one", "x");
    q.exact(h("ignored-when-a-chain-is-present"), 16);
    assertThat(Lookups.affinitySeedDigest(q, sha, digest)).isTrue();
    assertThat(digest).isEqualTo(sha256().digest(chainSeed("b0", "block-one", "x")));
    final List<String> ids = List.of("r1", "r2", "r3");
    serve("t", "vllm", ids.toArray(new String[0]));
    assertThat(hint(q)).isEqualTo(expected(chainSeed("b0", "block-one", "x"), ids));
  }

  @Test
  void exactSeedIsThePrefixHashBytes() {
    final LookupRequest q = exactReq("t", "m", "vllm", "prefix-bytes", 16);
    assertThat(Lookups.affinitySeedDigest(q, sha, digest)).isTrue();
    assertThat(digest).isEqualTo(sha256().digest(h("prefix-bytes")));
  }

  @Test
  void tenantModelAndSchemeAreNotPartOfTheSeed() {
    final byte[] a = new byte[32];
    final byte[] b = new byte[32];
    Lookups.affinitySeedDigest(chainReq("t1", "m1", "vllm", 16, "b0"), sha, a);
    Lookups.affinitySeedDigest(chainReq("t2", "m2", "sglang", 32, "b0"), sha, b);
    assertThat(a).isEqualTo(b);
  }

  @Test
  void candidatesAreTheReplicasServingTheScopeAcrossAdapters() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 16));
    ingest(update("t", "m", "vllm", "r2").legacy("q", 16));
    ingest(update("t", "m", "vllm", "r3").stats(0.9f, 0f)); // stats only: not serving
    final Set<String> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      seen.add(hint(exactReq("t", "m", "vllm", "seed-" + i, 16)));
    }
    assertThat(seen).containsExactlyInAnyOrder("r1", "r2");
  }
}
