package io.inferencecache.controlplane.server.probe;

import io.inferencecache.controlplane.api.ProbeRequest;
import io.inferencecache.controlplane.api.ProbeResult;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The in-process end-to-end probe behind {@code /probe} (docs/behaviour.md#probe): ingest a
 * one-block chain for the replica {@code __probe-<backend>} under the reserved tenant, see it
 * through the plain index lookup (stage {@code ingest}), see it win {@code PREFIX_MATCH} through
 * the index-level LookupRoute (stage {@code routing}, no handler gates), optionally run the T2
 * put/get (stage {@code t2}), and always clear the probe replica afterwards.
 *
 * <p>Thread-safe. Probes of the same (backend, model) are serialized by one of a fixed set of lock
 * stripes, so memory stays bounded whatever the request mix.
 */
public final class Prober {
  /** Tokens of the probe's single block ({@code ProbeTokenCount}). */
  public static final int PROBE_TOKEN_COUNT = 16;

  /** Prefix of every probe replica id. */
  public static final String REPLICA_PREFIX = "__probe-";

  private static final byte[] DOMAIN =
      "inferencecache.io/probe/v1\n".getBytes(StandardCharsets.UTF_8);
  private static final byte[] T2_PAYLOAD_PREFIX =
      "probe-payload-v1\n".getBytes(StandardCharsets.UTF_8);
  private static final int STRIPES = 64;

  private final Supplier<CacheIndex> index;
  private final T2Prober t2;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  /**
   * @param index the index (resolved per call: it is opened by the lifecycle after wiring)
   * @param t2 the T2 prober, or {@code null} (stage {@code t2} always skipped)
   */
  public Prober(final Supplier<CacheIndex> index, final T2Prober t2) {
    this.index = index;
    this.t2 = t2;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** The replica id a probe of {@code backend} uses. */
  public static String replicaId(final String backend) {
    return REPLICA_PREFIX + backend;
  }

  /**
   * {@code SHA-256("inferencecache.io/probe/v1\n" ‖ u32be(len)‖hashScheme ‖ u32be(len)‖model ‖
   * u32be(len)‖backend)}: 32 bytes, injective in its three inputs.
   */
  public static byte[] probeHash(
      final String hashScheme, final String model, final String backend) {
    final MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JRE", e);
    }
    sha.update(DOMAIN);
    for (final String part : new String[] {hashScheme, model, backend}) {
      final byte[] b = part.getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(4).putInt(b.length).array());
      sha.update(b);
    }
    return sha.digest();
  }

  /** Runs one probe; never throws for an expected failure (it is reported in the result). */
  public ProbeResult run(final ProbeRequest request) {
    final ReentrantLock lock = stripes[Math.floorMod(stripeKey(request), STRIPES)];
    lock.lock();
    try {
      return runLocked(request);
    } finally {
      lock.unlock();
    }
  }

  private static int stripeKey(final ProbeRequest r) {
    return 31 * r.backend().hashCode() + r.model().hashCode();
  }

  private ProbeResult runLocked(final ProbeRequest request) {
    final CacheIndex idx = index.get();
    final String tenant = CacheIndex.RESERVED_TENANT;
    final String replica = replicaId(request.backend());
    final byte[] hash = probeHash(request.hashScheme(), request.model(), request.backend());
    final List<ProbeResult.StageError> errors = new ArrayList<>(1);
    try {
      // Stage A: ingest, then the plain lookup must return the probe replica.
      idx.ingest(
          new IngestUpdate(
              replica,
              request.model(),
              tenant,
              request.hashScheme(),
              0,
              "",
              List.of(IngestPrefix.chain(List.of(hash), new int[] {PROBE_TOKEN_COUNT}, 0)),
              new IngestStats(0, 1.0f, 0f, 0, 0)));
      final LookupRequest lookup =
          new LookupRequest()
              .reset()
              .keys(tenant, request.model(), request.hashScheme(), "")
              .addBlockHash(hash)
              .addBlockTokenCount(PROBE_TOKEN_COUNT);
      final LookupResult result = new LookupResult();
      idx.lookup(lookup, result);
      if (!holds(idx, result, replica)) {
        errors.add(
            new ProbeResult.StageError(
                "ingest",
                "in-process ingest did not land: index lookup did not return probe replica "
                    + replica));
        return new ProbeResult(
            request.backend(),
            ProbeResult.FAILED,
            ProbeResult.SKIPPED,
            ProbeResult.SKIPPED,
            errors);
      }
      // Stage B: index-level LookupRoute must answer PREFIX_MATCH naming the probe replica.
      result.clear();
      idx.lookupAndClassify(lookup, result);
      final Outcome outcome = result.outcome();
      if (outcome != Outcome.PREFIX_MATCH) {
        errors.add(
            new ProbeResult.StageError(
                "routing",
                "LookupRoute returned "
                    + outcome.reasonCode()
                    + ", expected PREFIX_MATCH for probe replica "
                    + replica));
        return new ProbeResult(
            request.backend(), ProbeResult.OK, ProbeResult.FAILED, ProbeResult.SKIPPED, errors);
      }
      if (!holds(idx, result, replica)) {
        errors.add(
            new ProbeResult.StageError(
                "routing", "LookupRoute returned PREFIX_MATCH without probe replica " + replica));
        return new ProbeResult(
            request.backend(), ProbeResult.OK, ProbeResult.FAILED, ProbeResult.SKIPPED, errors);
      }
      // Stage C: T2 put/get, only for LMCache (or unspecified) backends with a prober wired.
      final String type = request.backendType();
      if (t2 == null || !(type.isEmpty() || "LMCache".equals(type))) {
        return new ProbeResult(
            request.backend(), ProbeResult.OK, ProbeResult.OK, ProbeResult.SKIPPED, errors);
      }
      final byte[] payload = new byte[T2_PAYLOAD_PREFIX.length + hash.length];
      System.arraycopy(T2_PAYLOAD_PREFIX, 0, payload, 0, T2_PAYLOAD_PREFIX.length);
      System.arraycopy(hash, 0, payload, T2_PAYLOAD_PREFIX.length, hash.length);
      try {
        t2.putGet(request.backend(), request.model(), hash, payload);
        return new ProbeResult(
            request.backend(), ProbeResult.OK, ProbeResult.OK, ProbeResult.OK, errors);
      } catch (Exception e) {
        errors.add(new ProbeResult.StageError("t2", "T2 put/get cycle failed: " + e.getMessage()));
        return new ProbeResult(
            request.backend(), ProbeResult.OK, ProbeResult.OK, ProbeResult.FAILED, errors);
      }
    } finally {
      idx.applyEvent(
          new IndexEvent(
              IndexEvent.Type.ALL_CLEARED, replica, request.model(), tenant, null, 0, ""));
    }
  }

  private static boolean holds(final CacheIndex idx, final LookupResult result, final String id) {
    for (int i = 0; i < result.size(); i++) {
      if (id.equals(idx.replicaName(result.replicaId(i)))) {
        return true;
      }
    }
    return false;
  }
}
