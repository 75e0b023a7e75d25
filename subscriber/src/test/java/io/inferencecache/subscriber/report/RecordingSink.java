package io.inferencecache.subscriber.report;

import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.sink.UpdateSink;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/** An {@link UpdateSink} that records every call in order; thread-safe. Can be told to fail. */
public final class RecordingSink implements UpdateSink {
  public record Eviction(byte[] prefixHash, String adapterId, long timestampMicros) {}

  public record Stats(StatsSample sample, long timestampMicros) {}

  public final List<SubscriberUpdate> updates = new CopyOnWriteArrayList<>();
  public final List<Eviction> evictions = new CopyOnWriteArrayList<>();
  public final List<Long> clears = new CopyOnWriteArrayList<>();
  public final List<Stats> stats = new CopyOnWriteArrayList<>();

  /** Every call in order: "report:n", "evict:hex", "clear", "stats". */
  public final List<String> calls = new CopyOnWriteArrayList<>();

  public final AtomicBoolean failing = new AtomicBoolean();

  /** What {@link #resyncRequested()} answers. */
  public final AtomicBoolean wantsResync = new AtomicBoolean();

  /** What {@link #ready()} answers. */
  public final AtomicBoolean ready = new AtomicBoolean(true);

  @Override
  public boolean ready() {
    return ready.get();
  }

  /** States handed to {@link #resync}. */
  public final List<SubscriberUpdate> resyncs = new CopyOnWriteArrayList<>();

  private void maybeFail() {
    if (failing.get()) {
      throw new IllegalStateException("sink unavailable");
    }
  }

  @Override
  public void report(final SubscriberUpdate update) {
    maybeFail();
    updates.add(update);
    calls.add("report:" + update.prefixes().size());
  }

  @Override
  public void prefixEvicted(
      final byte[] prefixHash, final String adapterId, final long timestampMicros) {
    maybeFail();
    evictions.add(new Eviction(prefixHash, adapterId, timestampMicros));
    calls.add("evict:" + HexFormat.of().formatHex(prefixHash));
  }

  @Override
  public void allCleared(final long timestampMicros) {
    maybeFail();
    clears.add(timestampMicros);
    calls.add("clear");
  }

  @Override
  public void stats(final StatsSample sample, final long timestampMicros) {
    maybeFail();
    stats.add(new Stats(sample, timestampMicros));
    calls.add("stats");
  }

  @Override
  public boolean resyncRequested() {
    return wantsResync.get();
  }

  @Override
  public void resync(final SubscriberUpdate state) {
    maybeFail();
    wantsResync.set(false);
    resyncs.add(state);
    calls.add("resync:" + state.prefixes().size());
  }

  /** Every prefix reported, in order. */
  public List<PrefixRecord> allPrefixes() {
    final List<PrefixRecord> out = new ArrayList<>();
    for (final SubscriberUpdate u : updates) {
      out.addAll(u.prefixes());
    }
    return out;
  }
}
