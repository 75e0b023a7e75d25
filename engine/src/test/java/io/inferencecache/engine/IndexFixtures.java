package io.inferencecache.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.EpochNanoClock;

/** Shared helpers for index tests: a settable clock and update/request builders. */
final class IndexFixtures {
  private IndexFixtures() {}

  /** Start of the test clock (2023-11-14T22:13:20Z), in epoch ns. */
  static final long T0 = TimeUnit.SECONDS.toNanos(1_700_000_000L);

  /** A clock tests move by hand. */
  static final class ManualClock implements EpochNanoClock {
    volatile long now = T0;

    @Override
    public long nanoTime() {
      return now;
    }

    void advance(final long amount, final TimeUnit unit) {
      now += unit.toNanos(amount);
    }
  }

  static byte[] h(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static IngestUpdate legacy(
      final String tenant,
      final String model,
      final String scheme,
      final String replica,
      final String hash,
      final int tokens) {
    return new IngestUpdate(
        replica,
        model,
        tenant,
        scheme,
        0,
        "",
        List.of(IngestPrefix.legacy(h(hash), tokens, 0)),
        null);
  }

  static IngestUpdate chain(
      final String tenant,
      final String model,
      final String scheme,
      final String replica,
      final int perBlock,
      final String... hashes) {
    final List<byte[]> hs = new ArrayList<>();
    final int[] counts = new int[hashes.length];
    for (int i = 0; i < hashes.length; i++) {
      hs.add(h(hashes[i]));
      counts[i] = perBlock;
    }
    return new IngestUpdate(
        replica, model, tenant, scheme, 0, "", List.of(IngestPrefix.chain(hs, counts, 0)), null);
  }

  static IngestUpdate stats(
      final String tenant,
      final String model,
      final String replica,
      final float hitRate,
      final float pressure) {
    return new IngestUpdate(
        replica, model, tenant, "", 0, "", List.of(), new IngestStats(0, hitRate, pressure, 0, 0));
  }

  static LookupRequest exactReq(
      final String tenant,
      final String model,
      final String scheme,
      final String hash,
      final int tokens) {
    return new LookupRequest().reset().keys(tenant, model, scheme, "").exact(h(hash), tokens);
  }

  static LookupRequest chainReq(
      final String tenant,
      final String model,
      final String scheme,
      final int perBlock,
      final String... hashes) {
    final LookupRequest q = new LookupRequest().reset().keys(tenant, model, scheme, "");
    for (String x : hashes) {
      q.addBlockHash(h(x)).addBlockTokenCount(perBlock);
    }
    return q;
  }

  static List<String> replicas(final CacheIndex index, final LookupResult r) {
    final List<String> out = new ArrayList<>();
    for (int i = 0; i < r.size(); i++) {
      out.add(index.replicaName(r.replicaId(i)));
    }
    return out;
  }
}
