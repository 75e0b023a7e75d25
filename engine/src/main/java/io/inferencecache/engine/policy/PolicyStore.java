package io.inferencecache.engine.policy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Object2LongHashMap;

/**
 * The server's policies and tenant quotas: one immutable compiled snapshot behind a volatile
 * reference, replaced as a whole by {@link #replace(PolicySnapshot)} (docs/behaviour.md#policy and
 * docs/behaviour.md#eviction-quota).
 *
 * <p>Policies are keyed by namespace (= the LookupRoute {@code tenant_id}); quotas by {@code
 * tenantID} (= the ingest {@code tenant_id}). Both live in the same compiled snapshot, so a push
 * changes them together, and a namespace or tenant missing from the new snapshot reverts to the
 * defaults (no policy → {@link ResolvedPolicy#DEFAULTS}, no quota → {@link #UNBOUNDED}).
 *
 * <p>Two ways to read, both allocation-free and never blocking: by name ({@link #resolve(String)},
 * {@link #maxIndexEntries(String)}), and by the small non-negative int id the store's interner
 * gives a name ({@link #resolve(int)}, {@link #maxIndexEntries(int)}), one primitive-keyed map get
 * each. Every read sees one whole snapshot; two reads may see two different snapshots if a replace
 * falls between them.
 *
 * <p>Thread-safety: any number of readers, concurrent with writers. Writers are serialized; a
 * replace compiles the new snapshot completely (its maps are never mutated after publication) and
 * then publishes it with one volatile write.
 */
public final class PolicyStore {

  /** {@link #maxIndexEntries(String)} of a tenant without a quota: no cap. */
  public static final long UNBOUNDED = -1L;

  /**
   * The tenant the backend probe ingests under (docs/behaviour.md#probe-tenant). It is always
   * quota-exempt: a quota entry naming it is stored but has no effect.
   */
  public static final String RESERVED_PROBE_TENANT = "inferencecache.io/probe";

  private static final float LOAD_FACTOR = 0.65f;

  private final ToIntFunction<String> interner;
  private final Object writeLock = new Object();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile Compiled compiled;

  /**
   * A store keyed by ids from a private interner, which {@link #interner()} exposes to callers of
   * the int-keyed reads.
   */
  public PolicyStore() {
    this(new PrivateInterner());
  }

  /**
   * A store whose int-keyed reads use the ids {@code interner} gives. The interner must map equal
   * strings to the same non-negative id for the store's lifetime and distinct strings to distinct
   * ids (the engine passes its string dictionary); it is called by {@link #replace(PolicySnapshot)}
   * once per namespace and tenant ID, on the replacing thread. A negative id means "no id": that
   * name is then readable by name only.
   */
  public PolicyStore(final ToIntFunction<String> interner) {
    this.interner = Objects.requireNonNull(interner, "interner");
    this.compiled = compile(PolicySnapshot.EMPTY, 0L, interner);
  }

  /** The interner whose ids the int-keyed reads expect. */
  public ToIntFunction<String> interner() {
    return interner;
  }

  /**
   * Replaces every policy and every tenant quota with those of {@code snapshot}, atomically, and
   * then runs the listeners. Callers normalize first ({@link PolicySnapshot#normalized()}); the
   * version is stored as given and not checked here.
   *
   * <p>Stored is {@code snapshot} with: policies whose namespace is {@code null} or empty dropped;
   * tenants whose tenantID is {@code null} or empty dropped; of entries sharing a namespace (or a
   * tenantID) only the last kept, at its own position; negative {@code maxIndexEntries} clamped to
   * {@code 0}. A quota for {@link #RESERVED_PROBE_TENANT} is stored but not enforced.
   *
   * <p>Listeners run on this thread after the new snapshot is visible, in registration order, while
   * other writers wait. If a listener throws, the remaining ones still run and the first exception
   * is rethrown (later ones suppressed); the snapshot stays replaced.
   *
   * @return the new {@link #generation()}
   */
  public long replace(final PolicySnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    synchronized (writeLock) {
      final Compiled next = compile(snapshot, compiled.generation + 1, interner);
      compiled = next;
      runListeners();
      return next.generation;
    }
  }

  /**
   * The resolved policy of {@code namespace}, or {@link ResolvedPolicy#DEFAULTS} when it has none
   * (or is {@code null}). Allocation-free.
   */
  public ResolvedPolicy resolve(final String namespace) {
    if (namespace == null) {
      return ResolvedPolicy.DEFAULTS;
    }
    final ResolvedPolicy policy = compiled.policiesByName.get(namespace);
    return policy != null ? policy : ResolvedPolicy.DEFAULTS;
  }

  /**
   * The resolved policy of the namespace whose interned id is {@code namespaceId}, or {@link
   * ResolvedPolicy#DEFAULTS}. Same answer as {@link #resolve(String)} for the name; one
   * primitive-keyed map get, allocation-free.
   */
  public ResolvedPolicy resolve(final int namespaceId) {
    final ResolvedPolicy policy = compiled.policiesById.get(namespaceId);
    return policy != null ? policy : ResolvedPolicy.DEFAULTS;
  }

  /**
   * The most distinct prefix keys {@code tenantId} may hold: {@code >= 0} when it has a quota
   * ({@code 0} admits nothing), {@link #UNBOUNDED} when it has none, is {@code null}, or is {@link
   * #RESERVED_PROBE_TENANT}. Allocation-free.
   */
  public long maxIndexEntries(final String tenantId) {
    if (tenantId == null) {
      return UNBOUNDED;
    }
    return compiled.quotasByName.getValue(tenantId);
  }

  /**
   * {@link #maxIndexEntries(String)} of the tenant whose interned id is {@code tenantId}; one
   * primitive-keyed map get, allocation-free.
   */
  public long maxIndexEntries(final int tenantId) {
    return compiled.quotasById.get(tenantId);
  }

  /** Number of replaces so far: {@code 0} before the first, then one more per {@link #replace}. */
  public long generation() {
    return compiled.generation;
  }

  /**
   * The stored snapshot (after the drop, last-wins and clamp rules of {@link #replace}); {@link
   * PolicySnapshot#EMPTY} before the first replace.
   */
  public PolicySnapshot current() {
    return compiled.snapshot;
  }

  /**
   * Registers {@code listener} to run after every later {@link #replace} (the engine invalidates
   * caches derived from policies). Listeners must be quick and must not block on readers.
   */
  public void addListener(final Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Unregisters one registration of {@code listener}; {@code true} if it was registered. */
  public boolean removeListener(final Runnable listener) {
    return listeners.remove(listener);
  }

  private void runListeners() {
    RuntimeException failure = null;
    for (final Runnable listener : listeners) {
      try {
        listener.run();
      } catch (final RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static Compiled compile(
      final PolicySnapshot snapshot, final long generation, final ToIntFunction<String> interner) {
    // Last wins: remove-then-put moves a repeated key to its last position.
    final LinkedHashMap<String, PolicySpec> policies = new LinkedHashMap<>();
    for (final PolicySpec policy : snapshot.policies()) {
      final String namespace = policy.namespace();
      if (namespace == null || namespace.isEmpty()) {
        continue;
      }
      policies.remove(namespace);
      policies.put(namespace, policy);
    }
    final LinkedHashMap<String, TenantSpec> tenants = new LinkedHashMap<>();
    for (final TenantSpec tenant : snapshot.tenants()) {
      final String tenantId = tenant.tenantID();
      if (tenantId == null || tenantId.isEmpty()) {
        continue;
      }
      // A negative budget would read as "no cap": clamp to the strictest cap instead.
      tenants.remove(tenantId);
      tenants.put(tenantId, tenant.maxIndexEntries() < 0 ? tenant.withMaxIndexEntries(0L) : tenant);
    }

    final Map<String, ResolvedPolicy> policiesByName = new HashMap<>();
    final Int2ObjectHashMap<ResolvedPolicy> policiesById =
        new Int2ObjectHashMap<>(capacity(policies.size()), LOAD_FACTOR);
    for (final PolicySpec policy : policies.values()) {
      final ResolvedPolicy resolved = ResolvedPolicy.of(policy);
      policiesByName.put(policy.namespace(), resolved);
      final int id = interner.applyAsInt(policy.namespace());
      if (id >= 0) {
        policiesById.put(id, resolved);
      }
    }
    final Object2LongHashMap<String> quotasByName =
        new Object2LongHashMap<>(capacity(tenants.size()), LOAD_FACTOR, UNBOUNDED);
    final Long2LongHashMap quotasById =
        new Long2LongHashMap(capacity(tenants.size()), LOAD_FACTOR, UNBOUNDED);
    for (final TenantSpec tenant : tenants.values()) {
      if (RESERVED_PROBE_TENANT.equals(tenant.tenantID())) {
        continue;
      }
      quotasByName.put(tenant.tenantID(), tenant.maxIndexEntries());
      final int id = interner.applyAsInt(tenant.tenantID());
      if (id >= 0) {
        quotasById.put(id, tenant.maxIndexEntries());
      }
    }

    final PolicySnapshot stored =
        new PolicySnapshot(
            snapshot.version(), List.copyOf(policies.values()), List.copyOf(tenants.values()));
    return new Compiled(generation, stored, policiesByName, policiesById, quotasByName, quotasById);
  }

  private static int capacity(final int entries) {
    return Math.max(8, (int) (entries / LOAD_FACTOR) + 1);
  }

  /** One published state; never mutated after construction, so readers need no lock. */
  private static final class Compiled {
    final long generation;
    final PolicySnapshot snapshot;
    final Map<String, ResolvedPolicy> policiesByName;
    final Int2ObjectHashMap<ResolvedPolicy> policiesById;
    final Object2LongHashMap<String> quotasByName;
    final Long2LongHashMap quotasById;

    Compiled(
        final long generation,
        final PolicySnapshot snapshot,
        final Map<String, ResolvedPolicy> policiesByName,
        final Int2ObjectHashMap<ResolvedPolicy> policiesById,
        final Object2LongHashMap<String> quotasByName,
        final Long2LongHashMap quotasById) {
      this.generation = generation;
      this.snapshot = snapshot;
      this.policiesByName = policiesByName;
      this.policiesById = policiesById;
      this.quotasByName = quotasByName;
      this.quotasById = quotasById;
    }
  }

  /**
   * Sequential ids from 0 for a store built without an interner; lock-free once a name is known.
   */
  private static final class PrivateInterner implements ToIntFunction<String> {
    private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();

    @Override
    public int applyAsInt(final String name) {
      final Integer id = ids.get(name);
      if (id != null) {
        return id;
      }
      synchronized (ids) {
        final Integer raced = ids.get(name);
        if (raced != null) {
          return raced;
        }
        final int next = ids.size();
        ids.put(name, next);
        return next;
      }
    }
  }
}
