package io.inferencecache.perf.replication;

import io.grpc.StatusRuntimeException;
import io.inferencecache.perf.chaos.IngestLoad;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.servelocal.ServeChild;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop LookupRoute threads spread round-robin over the drill's servers, each call with a 5 s
 * deadline, on random chains of {@code [0, universe)}; every non-OK status is an error, counted by
 * code.
 */
final class LookupLoad implements AutoCloseable {
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Map<String, Long> codes = new TreeMap<>();
  private final List<Thread> threads = new ArrayList<>();

  LookupLoad(final List<ServeChild> servers, final long universe, final int blocks, final int n) {
    for (int t = 0; t < n; t++) {
      final SplittableRandom rnd = new SplittableRandom(t);
      final Thread th =
          new Thread(
              () -> {
                long i = 0;
                while (running.get()) {
                  final ServeChild s = servers.get((int) (i++ % servers.size()));
                  try {
                    InferenceCacheGrpc.newBlockingStub(s.channel())
                        .withDeadlineAfter(5, TimeUnit.SECONDS)
                        .lookupRoute(IngestLoad.lookup(rnd.nextLong(universe), blocks));
                    ok.incrementAndGet();
                  } catch (StatusRuntimeException e) {
                    errors.incrementAndGet();
                    synchronized (codes) {
                      codes.merge(e.getStatus().getCode().name(), 1L, Long::sum);
                    }
                  }
                }
              },
              "drill-lookups-" + t);
      th.setDaemon(true);
      threads.add(th);
      th.start();
    }
  }

  long ok() {
    return ok.get();
  }

  long errors() {
    return errors.get();
  }

  String codes() {
    synchronized (codes) {
      return codes.toString();
    }
  }

  @Override
  public void close() {
    running.set(false);
    try {
      for (Thread t : threads) {
        t.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
