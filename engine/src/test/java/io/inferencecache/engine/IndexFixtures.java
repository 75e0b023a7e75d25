package io.inferencecache.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /** Epoch microseconds of an epoch-nanosecond time (the wire's {@code timestamp_us}). */
  static long micros(final long epochNanos) {
    return TimeUnit.NANOSECONDS.toMicros(epochNanos);
  }

  static long minutes(final long n) {
    return TimeUnit.MINUTES.toNanos(n);
  }

  static long seconds(final long n) {
    return TimeUnit.SECONDS.toNanos(n);
  }

  /** Freshness exactly as docs/behaviour.md#scores state it (independent of ScoreMath). */
  static float specFreshness(final long age, final long ttl) {
    if (ttl <= 0) {
      return 0f;
    }
    if (age <= 0) {
      return 1f;
    }
    if (age >= ttl) {
      return 0f;
    }
    return (float) (1.0 - (double) age / (double) ttl);
  }

  /**
   * distinguishingPower exactly as docs/behaviour.md#scores states it, as the float32 multiplied
   * in.
   */
  static float specDp(final int matching, final int total) {
    if (total <= 1 || matching < 0) {
      return 1f;
    }
    if (matching >= total) {
      return 0f;
    }
    return (float) (1.0 - (double) matching / (double) total);
  }

  /** A fluent builder of one {@link IngestUpdate}. */
  static UpdateBuilder update(
      final String tenant, final String model, final String scheme, final String replica) {
    return new UpdateBuilder(tenant, model, scheme, replica);
  }

  static final class UpdateBuilder {
    private final String tenant;
    private final String model;
    private final String scheme;
    private final String replica;
    private long tsMicros;
    private String adapter = "";
    private final List<IngestPrefix> prefixes = new ArrayList<>();
    private IngestStats stats;

    UpdateBuilder(
        final String tenant, final String model, final String scheme, final String replica) {
      this.tenant = tenant;
      this.model = model;
      this.scheme = scheme;
      this.replica = replica;
    }

    /** The update's timestamp as epoch nanoseconds (converted to micros); 0 = now. */
    UpdateBuilder at(final long epochNanos) {
      this.tsMicros = micros(epochNanos);
      return this;
    }

    UpdateBuilder adapter(final String a) {
      this.adapter = a;
      return this;
    }

    UpdateBuilder legacy(final String hash, final int tokens) {
      return legacy(h(hash), tokens, 0);
    }

    UpdateBuilder legacy(final byte[] hash, final int tokens, final int tier) {
      prefixes.add(IngestPrefix.legacy(hash, tokens, tier));
      return this;
    }

    UpdateBuilder legacyTier(final String hash, final int tokens, final int tier) {
      return legacy(h(hash), tokens, tier);
    }

    /** A legacy entry in its own adapter partition (entry-level adapter). */
    UpdateBuilder legacyFor(final String entryAdapter, final String hash, final int tokens) {
      prefixes.add(IngestPrefix.legacy(h(hash), tokens, 0).withAdapter(entryAdapter));
      return this;
    }

    UpdateBuilder chain(final int perBlock, final String... hashes) {
      return chainTier(0, perBlock, hashes);
    }

    UpdateBuilder chainTier(final int tier, final int perBlock, final String... hashes) {
      final int[] counts = new int[hashes.length];
      java.util.Arrays.fill(counts, perBlock);
      return chainCounts(tier, counts, hashes);
    }

    UpdateBuilder chainCounts(final int tier, final int[] counts, final String... hashes) {
      final List<byte[]> hs = new ArrayList<>();
      for (String x : hashes) {
        hs.add(h(x));
      }
      prefixes.add(IngestPrefix.chain(hs, counts, tier));
      return this;
    }

    UpdateBuilder prefix(final IngestPrefix p) {
      prefixes.add(p);
      return this;
    }

    UpdateBuilder stats(final float hitRate, final float pressure) {
      return stats(new IngestStats(0, hitRate, pressure, 0, 0));
    }

    UpdateBuilder stats(final IngestStats s) {
      this.stats = s;
      return this;
    }

    IngestUpdate build() {
      return new IngestUpdate(
          replica, model, tenant, scheme, tsMicros, adapter, List.copyOf(prefixes), stats);
    }
  }

  static IndexEvent event(
      final IndexEvent.Type type,
      final String tenant,
      final String model,
      final String replica,
      final String hash,
      final String adapter) {
    return new IndexEvent(type, replica, model, tenant, hash == null ? null : h(hash), 0, adapter);
  }

  /**
   * Tenant policies a test sets by tenant name (TTL, LFU, quota), changeable at any time from any
   * thread. Bind it to the index it serves so dictionary ids can be turned back into names.
   */
  static final class TestPolicies implements TenantPolicies {
    final Map<String, Long> ttl = new ConcurrentHashMap<>();
    final Set<String> lfu = ConcurrentHashMap.newKeySet();
    final Map<String, Long> quota = new ConcurrentHashMap<>();
    private volatile CacheIndex index;

    void bind(final CacheIndex i) {
      this.index = i;
    }

    private String name(final int id) {
      final CacheIndex i = index;
      return i == null || id < 0 ? null : i.replicaName(id);
    }

    @Override
    public long ttlNanos(final int tenantId) {
      final String n = name(tenantId);
      return n == null ? 0 : ttl.getOrDefault(n, 0L);
    }

    @Override
    public boolean lfu(final int tenantId) {
      final String n = name(tenantId);
      return n != null && lfu.contains(n);
    }

    @Override
    public long maxIndexEntries(final int tenantId) {
      final String n = name(tenantId);
      return n == null ? UNBOUNDED : quota.getOrDefault(n, UNBOUNDED);
    }
  }

  /** Records every listener call. */
  static final class RecordingListener implements IndexListener {
    record Call(String kind, String a, String b, long n) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final Map<String, Long> gauges = new ConcurrentHashMap<>();

    @Override
    public void onIndexEntries(final String model, final long distinctKeys) {
      calls.add(new Call("entries", model, "", distinctKeys));
      gauges.put(model, distinctKeys);
    }

    @Override
    public void onEvictions(final String algorithm, final String reason, final long count) {
      calls.add(new Call("evictions", algorithm, reason, count));
    }

    @Override
    public void onTenantEvictions(final String tenant, final String reason, final long count) {
      calls.add(new Call("tenant", tenant, reason, count));
    }

    /** Sum of {@code onEvictions(algorithm, reason, n)}. */
    long evictions(final String algorithm, final String reason) {
      return calls.stream()
          .filter(c -> c.kind.equals("evictions") && c.a.equals(algorithm) && c.b.equals(reason))
          .mapToLong(Call::n)
          .sum();
    }

    /** Sum of every {@code onEvictions} call. */
    long allEvictions() {
      return calls.stream().filter(c -> c.kind.equals("evictions")).mapToLong(Call::n).sum();
    }

    long tenantEvictions(final String tenant, final String reason) {
      return calls.stream()
          .filter(c -> c.kind.equals("tenant") && c.a.equals(tenant) && c.b.equals(reason))
          .mapToLong(Call::n)
          .sum();
    }

    /** Values pushed for {@code model}'s gauge, in order. */
    List<Long> gaugePushes(final String model) {
      return calls.stream()
          .filter(c -> c.kind.equals("entries") && c.a.equals(model))
          .map(Call::n)
          .toList();
    }
  }
}
