package io.inferencecache.perf.replication;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.perf.chaos.IngestLoad;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamReader;
import io.inferencecache.replication.StreamSettings;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.replication.ReplicatedIngest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A consumer rewound by {@code rewind} sequences: an in-process replica (a {@link CacheIndex} fed
 * by the server's {@link StreamReader} → {@link ReplicatedIngest}) reads the whole stream, its
 * digest is taken, then its reader is replaced by one that starts {@code rewind} sequences before
 * the applied one (as after a restore from an older index file), so that part of the stream is
 * applied a second time while a lookup thread runs. The digest after must equal the one before.
 *
 * <p>Digest: for every chain of the universe ({@link IngestLoad#lookup}), the reason code and the
 * sorted holders with their matched tokens, hashed with SHA-256 (LFU counts and scores excluded).
 */
final class RewindDrill {
  /** What the drill saw. */
  record Result(
      String digestBefore,
      String digestAfter,
      long fullMatches,
      long partialMatches,
      long reapplied,
      long lookups,
      long lookupErrors,
      long rewoundFrom,
      long last,
      long reapplyMillis) {
    boolean digestUnchanged() {
      return digestBefore.equals(digestAfter);
    }

    @Override
    public String toString() {
      return "rewind from="
          + rewoundFrom
          + " to="
          + last
          + " reapplied="
          + reapplied
          + " reapply_ms="
          + reapplyMillis
          + " full_matches="
          + fullMatches
          + " partial_matches="
          + partialMatches
          + " digest_before="
          + digestBefore.substring(0, 16)
          + " digest_after="
          + digestAfter.substring(0, 16)
          + " digest_unchanged="
          + digestUnchanged()
          + " lookups="
          + lookups
          + " lookup_errors="
          + lookupErrors;
    }
  }

  private RewindDrill() {}

  /**
   * Runs the drill on {@code stream}, whose chains are {@code [0, universe)} of {@code blocks}
   * blocks, published before the call (the stream must hold more than {@code rewind} messages).
   */
  static Result run(
      final String natsUrl,
      final String stream,
      final long universe,
      final int blocks,
      final int rewind,
      final Duration bound)
      throws Exception {
    final CacheIndex index =
        CacheIndex.open(
            new IndexConfig()
                .maxEntries(Math.max(1_000_000L, 4 * universe * blocks))
                .averageHashBytes(8)
                .defaultTtlNanos(TimeUnit.HOURS.toNanos(24)));
    index.start();
    final ReplicatedIngest ingest =
        new ReplicatedIngest(
            index,
            new IngestRules(System::nanoTime),
            null,
            System::currentTimeMillis,
            System::nanoTime);
    try (ReplicationStream rs =
        ReplicationStream.connect(
            new StreamSettings(natsUrl, stream, Duration.ofSeconds(5)), "drill-rewind")) {
      final long last;
      try (StreamReader first = new StreamReader(rs, index::appliedSequence, ingest)) {
        first.start();
        awaitTrue(first::caughtUp, bound, "first read");
        last = first.lastSequence();
      }
      final String before = digest(index, universe, blocks)[0];
      final long appliedBefore = ingest.applied();
      final long from = Math.max(0, last - rewind);
      final AtomicBoolean running = new AtomicBoolean(true);
      final AtomicLong lookups = new AtomicLong();
      final AtomicLong errors = new AtomicLong();
      final Thread looker =
          new Thread(
              () -> {
                final LookupRequest req = new LookupRequest();
                final LookupResult res = new LookupResult();
                long k = 0;
                while (running.get()) {
                  try {
                    lookup(index, req, res, k++ % universe, blocks);
                    lookups.incrementAndGet();
                  } catch (RuntimeException e) {
                    errors.incrementAndGet();
                  }
                }
              },
              "rewind-lookups");
      looker.start();
      final long t0 = System.nanoTime();
      final long reapplyMillis;
      try (StreamReader rewound = new StreamReader(rs, () -> from, ingest)) {
        rewound.start();
        awaitTrue(() -> rewound.lastSequence() >= last, bound, "rewound read");
        reapplyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      } finally {
        running.set(false);
        looker.join(10_000);
      }
      final String[] after = digest(index, universe, blocks);
      return new Result(
          before,
          after[0],
          Long.parseLong(after[1]),
          Long.parseLong(after[2]),
          ingest.applied() - appliedBefore,
          lookups.get(),
          errors.get(),
          from,
          last,
          reapplyMillis);
    } finally {
      index.close();
    }
  }

  private static void awaitTrue(
      final java.util.function.BooleanSupplier done, final Duration bound, final String what) {
    final long deadline = System.nanoTime() + bound.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " not done within " + bound);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  private static void lookup(
      final CacheIndex index,
      final LookupRequest req,
      final LookupResult res,
      final long k,
      final int blocks) {
    req.reset().keys(IngestLoad.TENANT, IngestLoad.MODEL, IngestLoad.SCHEME, "");
    for (int b = 0; b < blocks; b++) {
      req.addBlockHash(IngestLoad.hash(k, b).toByteArray()).addBlockTokenCount(16);
    }
    index.lookupAndClassify(req, res);
  }

  /**
   * {SHA-256 hex of every chain's answer, chains a holder matches in full, chains matched only in
   * part}.
   */
  static String[] digest(final CacheIndex index, final long universe, final int blocks)
      throws NoSuchAlgorithmException {
    final MessageDigest sha = MessageDigest.getInstance("SHA-256");
    final LookupRequest req = new LookupRequest();
    final LookupResult res = new LookupResult();
    long full = 0;
    long partial = 0;
    final List<String> holders = new ArrayList<>();
    for (long k = 0; k < universe; k++) {
      lookup(index, req, res, k, blocks);
      holders.clear();
      int best = 0;
      for (int i = 0; i < res.size(); i++) {
        if (res.matchedTokens(i) > 0) {
          holders.add(index.replicaName(res.replicaId(i)) + ":" + res.matchedTokens(i));
          best = Math.max(best, res.matchedTokens(i));
        }
      }
      if (best == 16 * blocks) {
        full++;
      } else if (best > 0) {
        partial++;
      }
      holders.sort(null);
      sha.update(
          (k + "=" + res.outcome().reasonCode() + holders + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return new String[] {
      HexFormat.of().formatHex(sha.digest()), Long.toString(full), Long.toString(partial)
    };
  }
}
