package io.inferencecache.engine.pd;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The server's P/D topologies: one immutable compiled snapshot behind a volatile reference,
 * replaced whole by {@link #replace(PdTopologySnapshot)} (docs/behaviour.md#lookup-pd-route). Held
 * in memory only: the controller pushes the full set on every change and every push interval.
 *
 * <p>Two reads, both allocation-free and never blocking: by {@code namespace/name} ({@link
 * #byRef(String)}) and by the interned id of a namespace ({@link #inNamespace(int)}, the topologies
 * a tenant without a {@code pd_topology_ref} may use). Of topologies sharing a {@code
 * namespace/name}, the last in the body is kept.
 *
 * <p>Thread-safety: any number of readers, concurrent with writers; writers are serialized; a
 * replace compiles the new snapshot completely and publishes it with one volatile write.
 */
public final class PdTopologyStore {
  private static final CompiledTopology[] NONE = new CompiledTopology[0];

  private final ToIntFunction<String> interner;
  private final Object writeLock = new Object();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile Compiled compiled;

  private record Compiled(
      long generation,
      PdTopologySnapshot snapshot,
      Map<String, CompiledTopology> byRef,
      Int2ObjectHashMap<CompiledTopology[]> byNamespace) {}

  /**
   * A store whose members and namespaces are interned by {@code interner} (the engine passes its
   * string dictionary: the router compares them with the index's replica and tenant ids). It is
   * called on the replacing thread, once per namespace and member.
   */
  public PdTopologyStore(final ToIntFunction<String> interner) {
    this.interner = Objects.requireNonNull(interner, "interner");
    this.compiled = compile(PdTopologySnapshot.EMPTY, 0L);
  }

  /**
   * Replaces every topology with those of {@code snapshot}, atomically, then runs the listeners (on
   * this thread, in registration order; the first exception is rethrown after all ran).
   *
   * @return the new {@link #generation()}
   */
  public long replace(final PdTopologySnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    synchronized (writeLock) {
      final Compiled next = compile(snapshot, compiled.generation + 1);
      compiled = next;
      RuntimeException first = null;
      for (final Runnable l : listeners) {
        try {
          l.run();
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
      return next.generation;
    }
  }

  private Compiled compile(final PdTopologySnapshot snapshot, final long generation) {
    final Map<String, CompiledTopology> byRef = new LinkedHashMap<>();
    for (final PdTopology t : snapshot.topologies()) {
      byRef.remove(t.ref()); // the last one wins, at its own position
      byRef.put(t.ref(), new CompiledTopology(t, interner));
    }
    final Map<Integer, List<CompiledTopology>> grouped = new HashMap<>();
    for (final CompiledTopology c : byRef.values()) {
      final int ns = interner.applyAsInt(c.topology().namespace());
      if (ns >= 0) {
        grouped.computeIfAbsent(ns, k -> new ArrayList<>()).add(c);
      }
    }
    final Int2ObjectHashMap<CompiledTopology[]> byNamespace = new Int2ObjectHashMap<>();
    grouped.forEach((ns, list) -> byNamespace.put(ns.intValue(), list.toArray(NONE)));
    return new Compiled(generation, snapshot, Map.copyOf(byRef), byNamespace);
  }

  /** The topology named {@code namespace/name}, or {@code null}. Allocation-free. */
  public CompiledTopology byRef(final String ref) {
    return ref == null ? null : compiled.byRef.get(ref);
  }

  /**
   * The topologies of the namespace whose interned id is {@code namespaceId}, in body order (empty
   * when none). The array is shared: never write to it. Allocation-free.
   */
  public CompiledTopology[] inNamespace(final int namespaceId) {
    if (namespaceId < 0) {
      return NONE;
    }
    final CompiledTopology[] t = compiled.byNamespace.get(namespaceId);
    return t == null ? NONE : t;
  }

  /** Every compiled topology, in body order (the last of each {@code namespace/name}). */
  public List<CompiledTopology> all() {
    final Compiled c = compiled;
    final List<CompiledTopology> out = new ArrayList<>(c.byRef.size());
    for (final PdTopology t : c.snapshot.topologies()) {
      final CompiledTopology ct = c.byRef.get(t.ref());
      if (ct != null && ct.topology() == t) {
        out.add(ct);
      }
    }
    return out;
  }

  /** The snapshot last given to {@link #replace}, as given. */
  public PdTopologySnapshot current() {
    return compiled.snapshot;
  }

  /** How many replaces so far. */
  public long generation() {
    return compiled.generation;
  }

  /** Registers {@code listener} to run after every later {@link #replace}. */
  public void addListener(final Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Unregisters one registration of {@code listener}; {@code true} if it was registered. */
  public boolean removeListener(final Runnable listener) {
    return listeners.remove(listener);
  }
}
