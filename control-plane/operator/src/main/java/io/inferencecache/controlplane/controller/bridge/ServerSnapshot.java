package io.inferencecache.controlplane.controller.bridge;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The server's {@code /snapshot} body as the controller reads it: lenient (unknown members ignored,
 * {@code null} lists read as empty), times as {@link Instant} with Go's zero time {@code
 * 0001-01-01T00:00:00Z} read as absent ({@code null}).
 */
public record ServerSnapshot(
    List<Replica> replicas, List<Tenant> tenants, long totalPrefixes, long hotPrefixes) {

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
          .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, false);

  public ServerSnapshot {
    replicas = replicas == null ? List.of() : List.copyOf(replicas);
    tenants = tenants == null ? List.of() : List.copyOf(tenants);
  }

  /** One replica row; {@code lastUpdate}/{@code lastEventAt} are {@code null} when absent. */
  public record Replica(
      String replicaId,
      String tenant,
      long cacheMemoryBytes,
      double hitRate,
      double pressure,
      Instant lastUpdate,
      long prefixCount,
      Instant lastEventAt,
      boolean statsReported,
      long t2HitTokens,
      long t2QueryTokens) {}

  /** One tenant row. */
  public record Tenant(
      String tenantId, long indexEntries, double hitRate, boolean hitRateReported) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record WireReplica(
      String replicaId,
      String tenant,
      long cacheMemoryBytes,
      double hitRate,
      double pressure,
      String lastUpdate,
      long prefixCount,
      String lastEventAt,
      boolean statsReported,
      long t2HitTokens,
      long t2QueryTokens) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record WireTenant(
      String tenantId, long indexEntries, double hitRate, boolean hitRateReported) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Wire(
      List<WireReplica> replicas, List<WireTenant> tenants, long totalPrefixes, long hotPrefixes) {}

  /**
   * @throws IOException when {@code body} is not a snapshot (not JSON, wrong member types or an
   *     unparseable time)
   */
  public static ServerSnapshot decode(final byte[] body) throws IOException {
    final Wire w = JSON.readValue(body, Wire.class);
    if (w == null) {
      throw new IOException("snapshot body is null");
    }
    try {
      return of(w);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static ServerSnapshot of(final Wire w) {
    final List<Replica> replicas =
        w.replicas() == null
            ? List.of()
            : w.replicas().stream()
                .filter(java.util.Objects::nonNull)
                .map(
                    r ->
                        new Replica(
                            nullToEmpty(r.replicaId()),
                            nullToEmpty(r.tenant()),
                            r.cacheMemoryBytes(),
                            r.hitRate(),
                            r.pressure(),
                            time(r.lastUpdate()),
                            r.prefixCount(),
                            time(r.lastEventAt()),
                            r.statsReported(),
                            r.t2HitTokens(),
                            r.t2QueryTokens()))
                .toList();
    final List<Tenant> tenants =
        w.tenants() == null
            ? List.of()
            : w.tenants().stream()
                .filter(java.util.Objects::nonNull)
                .map(
                    t ->
                        new Tenant(
                            nullToEmpty(t.tenantId()),
                            t.indexEntries(),
                            t.hitRate(),
                            t.hitRateReported()))
                .toList();
    return new ServerSnapshot(replicas, tenants, w.totalPrefixes(), w.hotPrefixes());
  }

  /** RFC 3339 text to an instant; absent, empty and Go's zero time are {@code null}. */
  static Instant time(final String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    final Instant t;
    try {
      t = OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("snapshot time " + text + ": " + e.getMessage(), e);
    }
    return t.getEpochSecond() <= GO_ZERO_EPOCH_SECOND ? null : t;
  }

  /** {@code 0001-01-01T00:00:00Z} in epoch seconds. */
  static final long GO_ZERO_EPOCH_SECOND = -62135596800L;

  private static String nullToEmpty(final String s) {
    return s == null ? "" : s;
  }
}
