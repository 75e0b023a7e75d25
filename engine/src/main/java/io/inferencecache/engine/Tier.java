package io.inferencecache.engine;

/** Cache tiers as on the wire ({@code CacheTier}): lower is more local. Not a ranking input. */
public final class Tier {
  public static final int UNSPECIFIED = 0;

  /** Engine KV cache (HBM). */
  public static final int T1 = 1;

  /** External offload, e.g. LMCache. */
  public static final int T2 = 2;

  /** Remote. */
  public static final int T3 = 3;

  private Tier() {}
}
