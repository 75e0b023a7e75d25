package io.inferencecache.engine.pd;

import java.util.List;

/**
 * A whole {@code /pd-topologies} body: the schema version and every topology. The controller pushes
 * the full set each time; {@link PdTopologyStore#replace(PdTopologySnapshot)} swaps it in whole.
 *
 * @param version the wire schema version ({@link #VERSION} is the only one accepted at the HTTP
 *     boundary)
 * @param topologies in body order; {@code null} → empty
 */
public record PdTopologySnapshot(int version, List<PdTopology> topologies) {
  /** The {@code /pd-topologies} schema version. */
  public static final int VERSION = 1;

  /** The state before any push. */
  public static final PdTopologySnapshot EMPTY = new PdTopologySnapshot(VERSION, List.of());

  public PdTopologySnapshot {
    topologies = topologies == null ? List.of() : List.copyOf(topologies);
  }
}
