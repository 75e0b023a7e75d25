/**
 * Prefill/decode (P/D) topologies, as pushed by the controller to {@code /pd-topologies}
 * (docs/behaviour.md#lookup-pd-route), and their compiled lookup-time form.
 *
 * <ul>
 *   <li>The wire model: {@link io.inferencecache.engine.pd.PdTopologySnapshot} holding {@link
 *       io.inferencecache.engine.pd.PdTopology}s, each with its {@link
 *       io.inferencecache.engine.pd.PdPool}s of {@link io.inferencecache.engine.pd.PdMember}s, its
 *       {@link io.inferencecache.engine.pd.PdLinks} and its {@link
 *       io.inferencecache.engine.pd.AcceleratorType}s. Defaults are applied by the records; no JSON
 *       here (the codec belongs to the control plane's {@code api}).
 *   <li>{@link io.inferencecache.engine.pd.PdTopologyStore}: one immutable compiled snapshot behind
 *       a volatile reference, replaced whole; allocation-free reads by {@code namespace/name} and
 *       by interned namespace id, each answering a {@link
 *       io.inferencecache.engine.pd.CompiledTopology} (members as interned replica ids, node and
 *       vendor classes, a name order for tie-breaks).
 * </ul>
 *
 * The decision over a topology is {@code io.inferencecache.engine.PdRouter}, in the engine package
 * so that it reuses the index's walk and the cost model's estimates (this package depends on no
 * engine class: the engine owns the store).
 */
package io.inferencecache.engine.pd;
