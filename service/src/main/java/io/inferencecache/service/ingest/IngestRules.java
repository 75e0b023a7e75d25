package io.inferencecache.service.ingest;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.service.log.LogRateLimiter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What ReportCacheState does with a defective message, in one place. Each defect costs the least
 * that keeps the index right:
 *
 * <table>
 *   <caption>Ingest defects</caption>
 *   <tr><th>defect</th><th>what is lost</th><th>counted as</th></tr>
 *   <tr><td>{@code prefix_hash} or one of {@code block_hashes} longer than {@value
 *       #MAX_HASH_BYTES} bytes</td><td>that entry</td>
 *       <td>{@link EntryDrop#HASH_TOO_LONG}</td></tr>
 *   <tr><td>a chain whose {@code block_hashes} and {@code block_token_counts} differ in
 *       length</td><td>that entry</td><td>{@link EntryDrop#CHAIN_LENGTH_MISMATCH}</td></tr>
 *   <tr><td>{@code tenant_id} is the reserved probe tenant</td><td>that update</td>
 *       <td>{@link UpdateDrop#RESERVED_TENANT}</td></tr>
 *   <tr><td>bytes that are not a valid {@code CacheStateUpdate} (malformed protobuf, invalid UTF-8
 *       in a string field, unreadable)</td><td>the rest of the stream: INVALID_ARGUMENT naming the
 *       field ({@link IngestMessage})</td><td>–</td></tr>
 * </table>
 *
 * A dropped entry or update is never an error: the other entries of the update and the rest of the
 * stream are ingested and the final Ack is {@code accepted: true}. Every drop is counted; an update
 * with dropped entries is also logged (one WARN line per update, at most {@value #LOG_LINES} lines
 * per {@value #LOG_INTERVAL_SECONDS} s, naming tenant, model, replica and the first offending
 * field). A message that cannot be parsed ends the stream because nothing in it — not even its
 * tenant or replica — can be trusted.
 *
 * <p>Thread-safe; counters are {@link LongAdder}s.
 */
public final class IngestRules {
  /** Longest hash the index stores. */
  public static final int MAX_HASH_BYTES = HolderLayout.MAX_HASH_BYTES;

  /** Drop log lines allowed per {@value #LOG_INTERVAL_SECONDS} s. */
  public static final int LOG_LINES = 10;

  /** The drop log's window. */
  public static final int LOG_INTERVAL_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(IngestRules.class);

  /** Why one entry of an update was dropped; {@link #label()} is the metric's {@code reason}. */
  public enum EntryDrop {
    HASH_TOO_LONG("hash_too_long"),
    CHAIN_LENGTH_MISMATCH("chain_length_mismatch");

    private final String label;

    EntryDrop(final String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** Why a whole update was dropped; {@link #label()} is the metric's {@code reason}. */
  public enum UpdateDrop {
    RESERVED_TENANT("reserved_tenant");

    private final String label;

    UpdateDrop(final String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** What was ingested; {@link #ingested} counts each since start. */
  public enum Ingested {
    /**
     * ReportCacheState updates passed to the index (some of their entries may have been dropped).
     */
    UPDATES,
    /** Entries of those updates passed to the index. */
    ENTRIES,
    /** PublishEvent events applied to the index. */
    EVENTS
  }

  private final LongAdder[] ingested = adders(Ingested.values().length);
  private final LongAdder[] entriesDropped = adders(EntryDrop.values().length);
  private final LongAdder[] updatesDropped = adders(UpdateDrop.values().length);
  private final LogRateLimiter log;

  /**
   * @param nanoClock the drop log's clock ({@code System::nanoTime})
   */
  public IngestRules(final LongSupplier nanoClock) {
    this.log =
        new LogRateLimiter(LOG_LINES, TimeUnit.SECONDS.toNanos(LOG_INTERVAL_SECONDS), nanoClock);
  }

  private static LongAdder[] adders(final int n) {
    final LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /**
   * Applies the rules to one parsed update.
   *
   * @return the engine update holding every entry that passed, or {@code null} when the whole
   *     update is dropped
   */
  public IngestUpdate admit(final CacheStateUpdate u) {
    if (CacheIndex.RESERVED_TENANT.equals(u.getTenantId())) {
      updatesDropped[UpdateDrop.RESERVED_TENANT.ordinal()].increment();
      return null; // the reserved probe tenant is never ingested over gRPC
    }
    final int n = u.getPrefixesCount();
    boolean[] drop = null;
    int dropped = 0;
    String first = null;
    for (int i = 0; i < n; i++) {
      final PrefixEntry e = u.getPrefixes(i);
      final String hashDefect = longHash(e, i);
      final EntryDrop why;
      final String what;
      if (hashDefect != null) {
        why = EntryDrop.HASH_TOO_LONG;
        what = hashDefect;
      } else if ((e.getBlockHashesCount() > 0 || e.getBlockTokenCountsCount() > 0)
          && e.getBlockHashesCount() != e.getBlockTokenCountsCount()) {
        why = EntryDrop.CHAIN_LENGTH_MISMATCH;
        what =
            "prefixes["
                + i
                + "] has "
                + e.getBlockHashesCount()
                + " block_hashes and "
                + e.getBlockTokenCountsCount()
                + " block_token_counts";
      } else {
        continue;
      }
      if (drop == null) {
        drop = new boolean[n];
        first = why.label() + ": " + what;
      }
      drop[i] = true;
      dropped++;
      entriesDropped[why.ordinal()].increment();
    }
    if (drop != null) {
      logDrop(u, dropped, first);
    }
    ingested[Ingested.UPDATES.ordinal()].increment();
    ingested[Ingested.ENTRIES.ordinal()].add(n - dropped);
    final boolean[] skip = drop;
    return IngestMapper.toIngest(u, skip == null ? i -> true : i -> !skip[i]);
  }

  /**
   * Whether a PublishEvent event reaches the index: every event but the reserved probe tenant's,
   * which is acknowledged and ignored (as upstream does).
   */
  public boolean admitEvent(final CacheEvent e) {
    if (CacheIndex.RESERVED_TENANT.equals(e.getTenantId())) {
      return false;
    }
    ingested[Ingested.EVENTS.ordinal()].increment();
    return true;
  }

  /** The field of entry {@code i} holding a hash over the limit, described, or null. */
  private static String longHash(final PrefixEntry e, final int i) {
    final int p = e.getPrefixHash().size();
    if (p > MAX_HASH_BYTES) {
      return "prefixes[" + i + "].prefix_hash is " + p + " bytes (limit " + MAX_HASH_BYTES + ")";
    }
    for (int j = 0; j < e.getBlockHashesCount(); j++) {
      final int b = e.getBlockHashes(j).size();
      if (b > MAX_HASH_BYTES) {
        return "prefixes["
            + i
            + "].block_hashes["
            + j
            + "] is "
            + b
            + " bytes (limit "
            + MAX_HASH_BYTES
            + ")";
      }
    }
    return null;
  }

  private void logDrop(final CacheStateUpdate u, final int dropped, final String first) {
    final long suppressed = log.acquire();
    if (suppressed == LogRateLimiter.SUPPRESS) {
      return;
    }
    LOG.warn(
        "event=ingest_entries_dropped tenant=\"{}\" model=\"{}\" replica=\"{}\" dropped={}"
            + " of={} first=\"{}\" suppressed_lines={}: the other entries were ingested",
        u.getTenantId(),
        u.getModelId(),
        u.getReplicaId(),
        dropped,
        u.getPrefixesCount(),
        first,
        suppressed);
  }

  /** {@code what} ingested since start. */
  public long ingested(final Ingested what) {
    return ingested[what.ordinal()].sum();
  }

  /** Entries dropped for {@code reason} since start. */
  public long entriesDropped(final EntryDrop reason) {
    return entriesDropped[reason.ordinal()].sum();
  }

  /** Updates dropped for {@code reason} since start. */
  public long updatesDropped(final UpdateDrop reason) {
    return updatesDropped[reason.ordinal()].sum();
  }
}
