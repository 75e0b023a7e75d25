package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexListener;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.io.File;

/**
 * The index (engine {@link IndexConfig}); keys and defaults as in docs/configuration.md's YAML
 * table.
 */
public final class IndexSettings {
  @Min(1)
  @Max(Integer.MAX_VALUE / 2)
  private long maxEntries = IndexConfig.MAX_ENTRIES_DEFAULT;

  private String persistenceFile;
  @NotNull private Duration defaultTtl = Duration.minutes(30);
  @NotNull private Duration sweepInterval = Duration.minutes(1);
  @NotNull private Duration tenantHotMaxAge = Duration.minutes(5);

  @DecimalMin("0")
  private float tenantHotMinHitRate = IndexConfig.TENANT_HOT_MIN_HIT_RATE_DEFAULT;

  private float pressureWeight = IndexConfig.PRESSURE_WEIGHT_DEFAULT;

  @Min(0)
  private int sloTightTtftMs = IndexConfig.SLO_TIGHT_TTFT_MS_DEFAULT;

  private float sloTightBias = IndexConfig.SLO_TIGHT_BIAS_DEFAULT;

  @Min(1)
  @Max(256)
  private int averageHashBytes = IndexConfig.AVERAGE_HASH_BYTES_DEFAULT;

  @DecimalMin("1")
  @DecimalMax("4096")
  private double averageHoldersPerKey = IndexConfig.AVERAGE_HOLDERS_PER_KEY_DEFAULT;

  @DecimalMin("0")
  @DecimalMax(value = "0.5", inclusive = false)
  private double evictionHeadroom = IndexConfig.EVICTION_HEADROOM_DEFAULT;

  @Min(16)
  private int reservedCapacity = IndexConfig.RESERVED_CAPACITY_DEFAULT;

  /** The engine config for these settings, reporting to {@code listener}. */
  public IndexConfig toIndexConfig(final IndexListener listener) {
    return new IndexConfig()
        .maxEntries(maxEntries)
        .persistenceFile(
            persistenceFile == null || persistenceFile.isBlank() ? null : new File(persistenceFile))
        .defaultTtlNanos(defaultTtl.toNanoseconds())
        .sweepIntervalNanos(sweepInterval.toNanoseconds())
        .tenantHotMaxAgeNanos(tenantHotMaxAge.toNanoseconds())
        .tenantHotMinHitRate(tenantHotMinHitRate)
        .pressureWeight(pressureWeight)
        .sloTightTtftMs(sloTightTtftMs)
        .sloTightBias(sloTightBias)
        .averageHashBytes(averageHashBytes)
        .averageHoldersPerKey(averageHoldersPerKey)
        .evictionHeadroom(evictionHeadroom)
        .reservedCapacity(reservedCapacity)
        .listener(listener);
  }

  @JsonProperty
  public long getMaxEntries() {
    return maxEntries;
  }

  @JsonProperty
  public void setMaxEntries(final long v) {
    this.maxEntries = v;
  }

  @JsonProperty
  public String getPersistenceFile() {
    return persistenceFile;
  }

  @JsonProperty
  public void setPersistenceFile(final String v) {
    this.persistenceFile = v;
  }

  @JsonProperty
  public Duration getDefaultTtl() {
    return defaultTtl;
  }

  @JsonProperty
  public void setDefaultTtl(final Duration v) {
    this.defaultTtl = v;
  }

  @JsonProperty
  public Duration getSweepInterval() {
    return sweepInterval;
  }

  @JsonProperty
  public void setSweepInterval(final Duration v) {
    this.sweepInterval = v;
  }

  @JsonProperty
  public Duration getTenantHotMaxAge() {
    return tenantHotMaxAge;
  }

  @JsonProperty
  public void setTenantHotMaxAge(final Duration v) {
    this.tenantHotMaxAge = v;
  }

  @JsonProperty
  public float getTenantHotMinHitRate() {
    return tenantHotMinHitRate;
  }

  @JsonProperty
  public void setTenantHotMinHitRate(final float v) {
    this.tenantHotMinHitRate = v;
  }

  @JsonProperty
  public float getPressureWeight() {
    return pressureWeight;
  }

  @JsonProperty
  public void setPressureWeight(final float v) {
    this.pressureWeight = v;
  }

  @JsonProperty
  public int getSloTightTtftMs() {
    return sloTightTtftMs;
  }

  @JsonProperty
  public void setSloTightTtftMs(final int v) {
    this.sloTightTtftMs = v;
  }

  @JsonProperty
  public float getSloTightBias() {
    return sloTightBias;
  }

  @JsonProperty
  public void setSloTightBias(final float v) {
    this.sloTightBias = v;
  }

  @JsonProperty
  public int getAverageHashBytes() {
    return averageHashBytes;
  }

  @JsonProperty
  public void setAverageHashBytes(final int v) {
    this.averageHashBytes = v;
  }

  @JsonProperty
  public double getAverageHoldersPerKey() {
    return averageHoldersPerKey;
  }

  @JsonProperty
  public void setAverageHoldersPerKey(final double v) {
    this.averageHoldersPerKey = v;
  }

  @JsonProperty
  public double getEvictionHeadroom() {
    return evictionHeadroom;
  }

  @JsonProperty
  public void setEvictionHeadroom(final double v) {
    this.evictionHeadroom = v;
  }

  @JsonProperty
  public int getReservedCapacity() {
    return reservedCapacity;
  }

  @JsonProperty
  public void setReservedCapacity(final int v) {
    this.reservedCapacity = v;
  }
}
