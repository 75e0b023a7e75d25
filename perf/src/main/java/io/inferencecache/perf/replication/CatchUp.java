package io.inferencecache.perf.replication;

import io.inferencecache.natslocal.NatsServer;
import io.inferencecache.servelocal.ServeChild;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Figure 3 ({@code ReplicationDrills catch-up}). Per run, on one broker:
 *
 * <ol>
 *   <li><b>empty</b>: a replica on an empty stream, start to {@code /readyz} (the start-up cost
 *       without catch-up);
 *   <li><b>wiped</b>: a replica without an index file on a stream of {@code entries / blocks}
 *       updates ({@code entries} holder-block entries): start to {@code /readyz}, then the applied
 *       sequence and the index entries are checked;
 *   <li><b>kill -9, 0 missed</b>: a persisted replica that applied {@code base} updates, killed and
 *       restarted with nothing new in the stream (what docs/reliability.md's kill -9 figure
 *       measures, plus the broker connection);
 *   <li><b>kill -9, missed</b>: the same replica killed again, {@code missed} updates published,
 *       restarted: start to {@code /readyz}; its log must show it resumed after its stored
 *       sequence.
 * </ol>
 */
final class CatchUp {
  private final ReplicationDrills.CatchUpCommand o;
  private final List<Long> wipedCatchUp = new ArrayList<>();
  private final List<Long> missedCatchUp = new ArrayList<>();
  private final List<Long> empty = new ArrayList<>();
  private final List<Long> wiped = new ArrayList<>();
  private final List<Long> killedNone = new ArrayList<>();
  private final List<Long> killedMissed = new ArrayList<>();

  /**
   * Messages per second of ready time beyond the run's empty (wiped) or 0-missed (killed) start.
   */
  private final List<Double> wipedRate = new ArrayList<>();

  private final List<Double> missedRate = new ArrayList<>();

  CatchUp(final ReplicationDrills.CatchUpCommand o) {
    this.o = o;
  }

  int run() throws Exception {
    final Path work = o.common.work();
    final long chains = o.entries / o.blocks;
    final long wipedMessages = chains / o.wipedChainsPerUpdate;
    final long wipedEntries = wipedMessages * o.wipedChainsPerUpdate * o.blocks;
    final long maxEntries = Math.max(2 * o.entries, 4 * (o.base + o.missed) * o.blocks);
    boolean ok = true;
    try (NatsServer nats = NatsServer.create().start()) {
      for (int run = 1; run <= o.runs; run++) {
        System.out.println("run=" + run + " load=\"" + ReplicationDrills.load() + "\"");
        final Path dir = work.resolve("run-" + run);

        long emptyMs = 0;
        final String emptyStream = "cu-empty-" + run;
        try (ServeChild s =
            new ServeChild(
                o.common.jar,
                ReplicationDrills.SERVE_JVM_OPTIONS,
                dir.resolve("empty"),
                ReplicationDrills.serveYaml(nats.url(), emptyStream, maxEntries, null))) {
          final long ms = s.start().awaitReadyMillis(o.common.readyTimeout);
          emptyMs = ms;
          empty.add(ms);
          System.out.println("  empty_stream ready_ms=" + ms);
        }

        final String wipedStream = "cu-wiped-" + run;
        try (StreamFill fill = new StreamFill(nats.url(), wipedStream, o.blocks, o.replicas)) {
          final long t0 = System.nanoTime();
          final long last = fill.publish(0, wipedMessages, o.wipedChainsPerUpdate);
          System.out.printf(
              "  wiped_fill messages=%d entries=%d publish_s=%.1f%n",
              last, wipedEntries, (System.nanoTime() - t0) / 1e9);
          try (ServeChild s =
              new ServeChild(
                  o.common.jar,
                  ReplicationDrills.SERVE_JVM_OPTIONS,
                  dir.resolve("wiped"),
                  ReplicationDrills.serveYaml(nats.url(), wipedStream, maxEntries, null))) {
            final long ms = s.start().awaitReadyMillis(o.common.readyTimeout);
            final long catchUp = s.millisSinceReaderStarted();
            final long applied = s.appliedSequence();
            final long indexed = (long) s.metric("inferencecache_index_storage_entries");
            wiped.add(ms);
            wipedCatchUp.add(catchUp);
            wipedRate.add(last * 1000.0 / Math.max(1, catchUp));
            System.out.println(
                "  wiped ready_ms="
                    + ms
                    + " reader_start_to_ready_ms="
                    + catchUp
                    + " applied="
                    + applied
                    + " index_entries="
                    + indexed);
            if (applied < last || indexed < wipedEntries) {
              System.out.println("  FAIL wiped replica ready before it applied the stream");
              ok = false;
            }
          }
        }

        final String killedStream = "cu-killed-" + run;
        try (StreamFill fill = new StreamFill(nats.url(), killedStream, o.blocks, o.replicas);
            ServeChild s =
                new ServeChild(
                    o.common.jar,
                    ReplicationDrills.SERVE_JVM_OPTIONS,
                    dir.resolve("killed"),
                    ReplicationDrills.serveYaml(
                        nats.url(),
                        killedStream,
                        maxEntries,
                        dir.resolve("killed").resolve("index.dat")))) {
          final long baseLast = fill.publish(0, o.base);
          s.start().awaitReadyMillis(o.common.readyTimeout);
          s.awaitApplied(baseLast, o.common.readyTimeout);
          s.kill();
          final long none = s.start().awaitReadyMillis(o.common.readyTimeout);
          killedNone.add(none);
          System.out.println("  killed_none_missed ready_ms=" + none);
          s.kill();
          final long last = fill.publish(o.base, o.missed);
          final long ms = s.start().awaitReadyMillis(o.common.readyTimeout);
          final long catchUp = s.millisSinceReaderStarted();
          final long applied = s.appliedSequence();
          final boolean resumed =
              s.log().contains("event=replication_reader_started stream=" + killedStream)
                  && s.log().contains(" from=" + (baseLast + 1) + " ");
          killedMissed.add(ms);
          missedCatchUp.add(catchUp);
          missedRate.add((last - baseLast) * 1000.0 / Math.max(1, catchUp));
          System.out.println(
              "  killed_missed missed="
                  + (last - baseLast)
                  + " ready_ms="
                  + ms
                  + " reader_start_to_ready_ms="
                  + catchUp
                  + " applied="
                  + applied
                  + " resumed_after_stored="
                  + resumed);
          if (applied < last || !resumed) {
            System.out.println("  FAIL killed replica did not resume after its stored sequence");
            ok = false;
          }
        }
      }
    }
    System.out.printf(
        "summary runs=%d load_end=\"%s\" empty_ready_ms_median=%d wiped_ready_ms_median=%d"
            + " (entries=%d) killed_none_ready_ms_median=%d killed_missed_ready_ms_median=%d"
            + " (missed=%d) wiped_reader_to_ready_ms_median=%d missed_reader_to_ready_ms_median=%d"
            + " wiped_catch_up_msgs_per_s=%s missed_catch_up_msgs_per_s=%s all=%s%n",
        o.runs,
        ReplicationDrills.load(),
        ReplicationDrills.median(empty),
        ReplicationDrills.median(wiped),
        o.entries,
        ReplicationDrills.median(killedNone),
        ReplicationDrills.median(killedMissed),
        o.missed,
        ReplicationDrills.median(wipedCatchUp),
        ReplicationDrills.median(missedCatchUp),
        rates(wipedRate),
        rates(missedRate),
        List.of(empty, wiped, killedNone, killedMissed));
    return ok ? 0 : 1;
  }

  private static String rates(final List<Double> r) {
    final StringBuilder b = new StringBuilder("[");
    for (double d : r) {
      b.append(b.length() > 1 ? "," : "").append(Math.round(d));
    }
    return b.append(']').toString();
  }
}
