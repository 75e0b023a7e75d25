package io.inferencecache.engine;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.agrona.concurrent.Agent;

/**
 * The write side of one {@link CacheIndex}: updates ({@link Ingester}), events ({@link
 * EventApplier}), the cap, quotas and full-storage eviction ({@link Evictor}), the TTL sweep
 * ({@link TtlSweeper}) and the LFU counters' sync, all over one {@link EngineState} and reporting
 * through one {@link IndexChanges}.
 *
 * <p><b>Threads.</b> Every method but {@link #sweep} and the agents is called by {@link CacheIndex}
 * under its writer lock; the sweep and the agents take that lock themselves, per step.
 */
final class IndexWriter {
  private final EngineState state;
  private final Ingester ingester;
  private final EventApplier events;
  private final TtlSweeper sweeper;
  private final Agent lfuAgent;

  IndexWriter(
      final EngineState state, final ReentrantLock writeLock, final BooleanSupplier closed) {
    this.state = state;
    final IndexChanges changes = new IndexChanges(state);
    this.ingester = new Ingester(state, changes, new Evictor(state, changes));
    this.events = new EventApplier(state, changes);
    this.sweeper = new TtlSweeper(state, changes, writeLock, closed);
    this.lfuAgent = state.lfuCounters.agent(writeLock, closed);
  }

  /** Binds the write path to the storage just opened; writer, at open. */
  void attach() {
    ingester.attach();
  }

  /** Ingests one update (docs/behaviour.md#ingest). Writer lock held. */
  void ingest(final IngestUpdate u) {
    ingester.ingest(u);
  }

  /** Applies one event (docs/behaviour.md#events). Writer lock held. */
  void apply(final IndexEvent e) {
    events.apply(e);
  }

  /** One TTL pass; takes the writer lock per segment. Returns the storage entries removed. */
  long sweep() {
    return sweeper.sweep();
  }

  /** Gives LFU counters to the entries of tenants switched to LFU. Writer lock held. */
  long syncLfuCounters() {
    return state.lfuCounters.sync();
  }

  /** Recounts the secondary counts and compares them (see {@link CacheIndex#verifyCounts()}). */
  List<String> verifyCounts() {
    final IndexStorage storage = state.storage;
    return state.counts.verify(
        storage.main(), storage.reserved(), storage.arena(), state.lfuCounters::ready);
  }

  /** The TTL sweeper, an agent for the index's background thread. */
  Agent sweeper() {
    return sweeper;
  }

  /** The agent that gives LFU counters to tenants switched to LFU within 50 ms. */
  Agent lfuAgent() {
    return lfuAgent;
  }
}
