package io.inferencecache.engine;

import java.io.File;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.OffsetEpochNanoClock;

/**
 * Settings of a {@link CacheIndex}: a fluent context validated once by {@link #conclude()} before
 * any file or thread is created. Defaults are the upstream server's compile-time values.
 */
public final class IndexConfig {
  /** Global cap on storage entries (one per (prefix key, replica)); sizes the off-heap map. */
  public static final long MAX_ENTRIES_DEFAULT = 1_000_000L;

  public static final long TTL_DEFAULT_NS = TimeUnit.MINUTES.toNanos(30);
  public static final long SWEEP_INTERVAL_DEFAULT_NS = TimeUnit.MINUTES.toNanos(1);
  public static final long TENANT_HOT_MAX_AGE_DEFAULT_NS = TimeUnit.MINUTES.toNanos(5);
  public static final float TENANT_HOT_MIN_HIT_RATE_DEFAULT = 0.1f;
  public static final float PRESSURE_WEIGHT_DEFAULT = 1.0f;
  public static final int SLO_TIGHT_TTFT_MS_DEFAULT = 200;
  public static final float SLO_TIGHT_BIAS_DEFAULT = 1.0f;
  public static final int AVERAGE_HASH_BYTES_DEFAULT = 8;
  public static final double AVERAGE_HOLDERS_PER_KEY_DEFAULT = 2.0;

  /**
   * Fraction of the cap (and of a tenant quota) evicted below the limit in one pass, so that an
   * index at its limit does not scan on every ingest. 0 reproduces upstream's exact "evict down to
   * the limit" victim set; see engine/docs/design.md.
   */
  public static final double EVICTION_HEADROOM_DEFAULT = 0.01;

  /** Storage entries the reserved probe tenant may hold (a separate small map). */
  public static final int RESERVED_CAPACITY_DEFAULT = 16_384;

  private long maxEntries = MAX_ENTRIES_DEFAULT;
  private File persistenceFile;
  private long defaultTtlNanos = TTL_DEFAULT_NS;
  private long sweepIntervalNanos = SWEEP_INTERVAL_DEFAULT_NS;
  private long tenantHotMaxAgeNanos = TENANT_HOT_MAX_AGE_DEFAULT_NS;
  private float tenantHotMinHitRate = TENANT_HOT_MIN_HIT_RATE_DEFAULT;
  private float pressureWeight = PRESSURE_WEIGHT_DEFAULT;
  private int sloTightTtftMs = SLO_TIGHT_TTFT_MS_DEFAULT;
  private float sloTightBias = SLO_TIGHT_BIAS_DEFAULT;
  private int averageHashBytes = AVERAGE_HASH_BYTES_DEFAULT;
  private double averageHoldersPerKey = AVERAGE_HOLDERS_PER_KEY_DEFAULT;
  private double evictionHeadroom = EVICTION_HEADROOM_DEFAULT;
  private int reservedCapacity = RESERVED_CAPACITY_DEFAULT;

  /**
   * Wall clock in epoch nanoseconds, read once per lookup. Agrona's offset clock (nanoTime plus an
   * offset sampled from the wall clock, re-sampled hourly) allocates nothing; the system clock goes
   * through {@code Instant.now()}, whose 24 B only escape analysis removes.
   */
  private static final EpochNanoClock DEFAULT_CLOCK = new OffsetEpochNanoClock();

  private EpochNanoClock clock = DEFAULT_CLOCK;
  private TenantPolicies policies = TenantPolicies.DEFAULTS;
  private IndexListener listener = IndexListener.NOOP;
  private boolean concluded;

  public long maxEntries() {
    return maxEntries;
  }

  public IndexConfig maxEntries(final long v) {
    maxEntries = v;
    return this;
  }

  /** The file of a persisted index, or null for an in-memory (off-heap) index. */
  public File persistenceFile() {
    return persistenceFile;
  }

  public IndexConfig persistenceFile(final File f) {
    persistenceFile = f;
    return this;
  }

  public long defaultTtlNanos() {
    return defaultTtlNanos;
  }

  /** Non-positive values fall back to the default (30 min). */
  public IndexConfig defaultTtlNanos(final long v) {
    defaultTtlNanos = v;
    return this;
  }

  public long sweepIntervalNanos() {
    return sweepIntervalNanos;
  }

  /** Non-positive values fall back to the default (1 min). */
  public IndexConfig sweepIntervalNanos(final long v) {
    sweepIntervalNanos = v;
    return this;
  }

  public long tenantHotMaxAgeNanos() {
    return tenantHotMaxAgeNanos;
  }

  /** 0 or less disables TENANT_HOT. */
  public IndexConfig tenantHotMaxAgeNanos(final long v) {
    tenantHotMaxAgeNanos = v;
    return this;
  }

  public float tenantHotMinHitRate() {
    return tenantHotMinHitRate;
  }

  public IndexConfig tenantHotMinHitRate(final float v) {
    tenantHotMinHitRate = v;
    return this;
  }

  public float pressureWeight() {
    return pressureWeight;
  }

  public IndexConfig pressureWeight(final float v) {
    pressureWeight = v;
    return this;
  }

  public int sloTightTtftMs() {
    return sloTightTtftMs;
  }

  public IndexConfig sloTightTtftMs(final int v) {
    sloTightTtftMs = v;
    return this;
  }

  public float sloTightBias() {
    return sloTightBias;
  }

  public IndexConfig sloTightBias(final float v) {
    sloTightBias = v;
    return this;
  }

  public int averageHashBytes() {
    return averageHashBytes;
  }

  /** Sizing hint for the off-heap map (8 for the vllm scheme, 32 for SHA-256 schemes). */
  public IndexConfig averageHashBytes(final int v) {
    averageHashBytes = v;
    return this;
  }

  public double averageHoldersPerKey() {
    return averageHoldersPerKey;
  }

  /** Sizing hint for the off-heap map: replicas holding a typical key. */
  public IndexConfig averageHoldersPerKey(final double v) {
    averageHoldersPerKey = v;
    return this;
  }

  public double evictionHeadroom() {
    return evictionHeadroom;
  }

  public IndexConfig evictionHeadroom(final double v) {
    evictionHeadroom = v;
    return this;
  }

  public int reservedCapacity() {
    return reservedCapacity;
  }

  public IndexConfig reservedCapacity(final int v) {
    reservedCapacity = v;
    return this;
  }

  public EpochNanoClock clock() {
    return clock;
  }

  public IndexConfig clock(final EpochNanoClock c) {
    clock = c;
    return this;
  }

  public TenantPolicies policies() {
    return policies;
  }

  /**
   * Overrides where TTLs, eviction algorithms and quotas come from (tests). By default the index
   * uses its own {@link CacheIndex#policyStore()}.
   */
  public IndexConfig policies(final TenantPolicies p) {
    policies = p;
    return this;
  }

  public IndexListener listener() {
    return listener;
  }

  public IndexConfig listener(final IndexListener l) {
    listener = l;
    return this;
  }

  /** Validates and applies defaults. Throws {@link IllegalArgumentException} naming the setting. */
  public IndexConfig conclude() {
    if (concluded) {
      return this;
    }
    if (maxEntries <= 0 || maxEntries > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(
          "index.maxEntries must be between 1 and " + Integer.MAX_VALUE / 2 + ": " + maxEntries);
    }
    if (defaultTtlNanos <= 0) {
      defaultTtlNanos = TTL_DEFAULT_NS;
    }
    if (sweepIntervalNanos <= 0) {
      sweepIntervalNanos = SWEEP_INTERVAL_DEFAULT_NS;
    }
    if (averageHashBytes < 1 || averageHashBytes > 256) {
      throw new IllegalArgumentException(
          "index.averageHashBytes must be between 1 and 256: " + averageHashBytes);
    }
    if (!(averageHoldersPerKey >= 1.0) || averageHoldersPerKey > 4096) {
      throw new IllegalArgumentException(
          "index.averageHoldersPerKey must be between 1 and 4096: " + averageHoldersPerKey);
    }
    if (!(evictionHeadroom >= 0.0) || evictionHeadroom >= 0.5) {
      throw new IllegalArgumentException(
          "index.evictionHeadroom must be in [0, 0.5): " + evictionHeadroom);
    }
    if (reservedCapacity < 16) {
      throw new IllegalArgumentException(
          "index.reservedCapacity must be at least 16: " + reservedCapacity);
    }
    if (clock == null || policies == null || listener == null) {
      throw new IllegalArgumentException("index clock, policies and listener must be set");
    }
    concluded = true;
    return this;
  }
}
