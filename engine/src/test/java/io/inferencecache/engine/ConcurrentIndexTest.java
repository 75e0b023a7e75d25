package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Readers racing the writer (ingest, events, sweeps, cap and quota evictions), and lock-free LFU
 * credits (docs/behaviour.md#index-model, docs/behaviour.md#eviction-lru-lfu; checklist 84).
 */
class ConcurrentIndexTest extends IndexTestSupport {
  private static final int CAP = 300;
  private static final long QUOTA = 40;
  private static final String[] TENANTS = {"a", "b", "q", "lfu"};
  private static final String[] MODELS = {"m1", "m2"};
  private static final String[] SCHEMES = {"vllm", "sglang"};

  private static String pick(final Random rnd, final String[] from) {
    return from[rnd.nextInt(from.length)];
  }

  private static String[] chainHashes(final Random rnd) {
    final int family = rnd.nextInt(12);
    final int n = 1 + rnd.nextInt(6);
    final String[] hs = new String[n];
    for (int i = 0; i < n; i++) {
      hs[i] = "c" + family + "-" + i;
    }
    return hs;
  }

  /** One random mutation: ingest, stats, event, probe ingest, or clock step and sweep. */
  private void mutate(final Random rnd) {
    final int op = rnd.nextInt(100);
    final String t = pick(rnd, TENANTS);
    final String m = pick(rnd, MODELS);
    final String rep = "r" + rnd.nextInt(6);
    if (op < 60) {
      final IndexFixtures.UpdateBuilder u = update(t, m, pick(rnd, SCHEMES), rep);
      u.chainTier(rnd.nextInt(4), 16, chainHashes(rnd));
      if (rnd.nextInt(4) == 0) {
        u.legacy("x" + rnd.nextInt(50), rnd.nextInt(200));
      }
      if (rnd.nextInt(5) == 0) {
        u.adapter("lora" + rnd.nextInt(2));
      }
      if (rnd.nextInt(3) == 0) {
        u.stats(rnd.nextFloat(), rnd.nextFloat());
      }
      index.ingest(u.build());
    } else if (op < 68) {
      index.ingest(update(t, m, "", rep).stats(rnd.nextFloat(), rnd.nextFloat()).build());
    } else if (op < 80) {
      final String[] hs = chainHashes(rnd);
      index.applyEvent(
          IndexFixtures.event(
              IndexEvent.Type.PREFIX_EVICTED,
              t,
              m,
              rep,
              hs[rnd.nextInt(hs.length)],
              rnd.nextBoolean() ? "" : "lora0"));
    } else if (op < 84) {
      index.applyEvent(IndexFixtures.event(IndexEvent.Type.ALL_CLEARED, t, m, rep, null, ""));
    } else if (op < 88) {
      index.applyEvent(IndexFixtures.event(IndexEvent.Type.REPLICA_UPDATED, t, m, rep, null, ""));
    } else if (op < 92) {
      index.ingest(
          update(CacheIndex.RESERVED_TENANT, m, "vllm", "__probe-" + rep)
              .chain(16, chainHashes(rnd))
              .build());
    } else {
      clock.advance(1 + rnd.nextInt(4), TimeUnit.MINUTES);
      index.sweepExpired();
    }
  }

  /** Checks what any lookup answer must satisfy, whatever the writer is doing. */
  private static void checkAnswer(final LookupResult res) {
    final Outcome o = res.outcome();
    if (o == Outcome.PREFIX_MATCH || o == Outcome.TENANT_HOT) {
      assertThat(res.size()).isPositive();
    } else {
      assertThat(res.size()).isZero();
    }
    for (int i = 0; i < res.size(); i++) {
      assertThat(Float.isFinite(res.score(i))).isTrue();
      assertThat(res.score(i)).isGreaterThanOrEqualTo(0f);
      assertThat(res.estimatedCacheHitProb(i)).isBetween(0f, 1f);
      if (i > 0) {
        assertThat(res.score(i)).isLessThanOrEqualTo(res.score(i - 1));
      }
      if (o == Outcome.TENANT_HOT) {
        assertThat(res.matchedTokens(i)).isZero();
      }
    }
  }

  @Test
  @Timeout(180)
  void readersNeverFailWhileTheWriterIngestsEvictsAndSweeps() throws Exception {
    reopen(baseConfig().maxEntries(CAP));
    policies.lfu.add("lfu");
    policies.lfu.add("a");
    policies.quota.put("q", QUOTA);
    final AtomicBoolean done = new AtomicBoolean();
    final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    final AtomicLong lookups = new AtomicLong();
    final AtomicLong credited = new AtomicLong();
    final CountDownLatch started = new CountDownLatch(2);
    final List<Thread> readers = new ArrayList<>();
    for (int k = 0; k < 2; k++) {
      final long seed = 1000 + k;
      final Thread reader =
          new Thread(
              () -> {
                final Random rnd = new Random(seed);
                final LookupResult res = new LookupResult();
                final byte[] digest = new byte[32];
                started.countDown();
                try {
                  final MessageDigest sha = MessageDigest.getInstance("SHA-256");
                  while (!done.get()) {
                    final String t = pick(rnd, TENANTS);
                    final String m = pick(rnd, MODELS);
                    final String s = pick(rnd, SCHEMES);
                    final LookupRequest q =
                        rnd.nextBoolean()
                            ? chainReq(t, m, s, 16, chainHashes(rnd))
                            : exactReq(t, m, s, "c" + rnd.nextInt(12) + "-0", 16);
                    if (rnd.nextInt(5) == 0) {
                      q.adapter().set("lora" + rnd.nextInt(2));
                    }
                    index.lookupAndClassify(q, res);
                    checkAnswer(res);
                    credited.addAndGet(index.creditDelivered(res));
                    index.lookup(q, res);
                    checkAnswer(res);
                    if (Lookups.affinitySeedDigest(q, sha, digest)) {
                      final int id = index.affinityHint(q, digest);
                      if (id >= 0) {
                        assertThat(index.replicaName(id)).startsWith("r");
                      }
                    }
                    lookups.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "reader-" + k);
      reader.start();
      readers.add(reader);
    }
    started.await();
    final Random rnd = new Random(42);
    try {
      for (int i = 0; i < 6000 && failures.isEmpty(); i++) {
        mutate(rnd);
        assertThat(index.totalEntries() - index.reservedEntries()).isLessThanOrEqualTo(CAP);
      }
    } finally {
      done.set(true);
      for (Thread t : readers) {
        t.join();
      }
    }
    assertThat(failures).isEmpty();
    assertThat(lookups.get()).isPositive();
    assertThat(credited.get()).as("LFU credits happened").isPositive();
    assertThat(index.verifyCounts()).isEmpty();
    assertThat(index.totalEntries() - index.reservedEntries()).isLessThanOrEqualTo(CAP);
    assertThat(listener.evictions("lru", "cap") + listener.evictions("lfu", "cap")).isPositive();
    assertThat(listener.tenantEvictions("q", "over_entries")).isPositive();
    assertThat(
            index.cacheState("q", "m1").totalPrefixes()
                + index.cacheState("q", "m2").totalPrefixes())
        .isLessThanOrEqualTo(QUOTA);
    assertThat(index.droppedFull()).isZero();
    final IndexSnapshot s = index.snapshot();
    assertThat(s.totalPrefixes())
        .isEqualTo(s.tenants().stream().mapToLong(IndexSnapshot.TenantRow::indexEntries).sum());
  }

  @Test
  @Timeout(120)
  void concurrentDeliveredLookupsLoseNoLfuIncrements() throws Exception {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1", "b2", "b3"));
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    final int threads = 4;
    final int rounds = 5_000;
    final CountDownLatch go = new CountDownLatch(1);
    final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    final List<Thread> ts = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      final Thread th =
          new Thread(
              () -> {
                final LookupResult res = new LookupResult();
                final LookupRequest chain = chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3");
                final LookupRequest exact = exactReq("t", "m", "vllm", "p", 0);
                try {
                  go.await();
                  for (int i = 0; i < rounds; i++) {
                    index.lookupAndClassify(chain, res);
                    assertThat(index.creditDelivered(res)).isEqualTo(4);
                    index.lookupAndClassify(exact, res);
                    assertThat(index.creditDelivered(res)).isEqualTo(1);
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      th.start();
      ts.add(th);
    }
    go.countDown();
    for (Thread th : ts) {
      th.join();
    }
    assertThat(failures).isEmpty();
    for (String b : List.of("b0", "b1", "b2", "b3")) {
      assertThat(index.accessCount("t", "m", "vllm", "", h(b), "r1"))
          .isEqualTo((long) threads * rounds);
    }
    assertThat(index.accessCount("t", "m", "vllm", "", h("p"), "r2"))
        .isEqualTo((long) threads * rounds);
  }

  @Test
  @Timeout(120)
  void creditingOneDeliveredResultFromManyThreadsLosesNothing() throws Exception {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1"));
    final LookupResult shared = new LookupResult();
    index.lookupAndClassify(chainReq("t", "m", "vllm", 16, "b0", "b1"), shared);
    final int threads = 4;
    final int rounds = 20_000;
    final CountDownLatch go = new CountDownLatch(1);
    final List<Thread> ts = new ArrayList<>();
    final AtomicLong credited = new AtomicLong();
    for (int k = 0; k < threads; k++) {
      final Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < rounds; i++) {
                  credited.addAndGet(index.creditDelivered(shared));
                }
              });
      th.start();
      ts.add(th);
    }
    go.countDown();
    for (Thread th : ts) {
      th.join();
    }
    assertThat(credited.get()).isEqualTo(2L * threads * rounds);
    assertThat(index.accessCount("t", "m", "vllm", "", h("b0"), "r1"))
        .isEqualTo((long) threads * rounds);
    assertThat(index.accessCount("t", "m", "vllm", "", h("b1"), "r1"))
        .isEqualTo((long) threads * rounds);
  }
}
