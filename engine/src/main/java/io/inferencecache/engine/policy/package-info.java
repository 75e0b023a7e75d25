/**
 * Per-namespace cache policies and per-tenant entry quotas, as pushed by the controller to {@code
 * /policy} (docs/behaviour.md#policy), and their lookup-time resolution.
 *
 * <p>Three layers:
 *
 * <ul>
 *   <li>The wire model, as written in a {@code /policy} body: {@link
 *       io.inferencecache.engine.policy.PolicySnapshot} holding {@link
 *       io.inferencecache.engine.policy.PolicySpec}s and {@link
 *       io.inferencecache.engine.policy.TenantSpec}s. Boxed, nullable fields keep the wire's
 *       "absent" apart from an explicit zero or {@code false}. {@link
 *       io.inferencecache.engine.policy.PolicySnapshot#normalized()} fills the fields an older
 *       (v3–v6) body cannot carry. No JSON here: decoding belongs to the HTTP module.
 *   <li>The lookup-time view: {@link io.inferencecache.engine.policy.ResolvedPolicy}, primitive
 *       fields with every default and clamp applied, and {@link
 *       io.inferencecache.engine.policy.EvictionAlgorithm}.
 *   <li>{@link io.inferencecache.engine.policy.PolicyStore}: one immutable compiled snapshot behind
 *       a volatile reference, replaced whole; allocation-free reads by name or by interned tenant
 *       id.
 * </ul>
 */
package io.inferencecache.engine.policy;
