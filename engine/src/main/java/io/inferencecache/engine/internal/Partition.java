package io.inferencecache.engine.internal;

/**
 * An index partition: (tenant, model, hash scheme, adapter) interned to one id, the first four
 * bytes of every key in it. {@code tm} and {@code scope} are the ids of (tenant, model) and
 * (tenant, model, scheme).
 */
public record Partition(
    int id, int tenant, int model, int scheme, int adapter, int tm, int scope, boolean reserved) {}
