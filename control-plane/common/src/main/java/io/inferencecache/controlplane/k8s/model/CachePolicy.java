package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;

/** Routing and eviction policy of one namespace ({@code cachepolicies}, short name cpol). */
public final class CachePolicy extends CustomResource<CachePolicy.Spec, ConditionedStatus> {
  public static final CrdKind<CachePolicy, CachePolicyList> CRD =
      new CrdKind<>(CachePolicy.class, CachePolicyList.class, "CachePolicy", "cachepolicies", true);

  public CachePolicy() {
    super("CachePolicy");
  }

  /** The policy; unset fields take the schema's defaults on the API server. */
  public static class Spec {
    public Eviction eviction;
    public String evictionTTL;
    public Integer minimumPrefixTokens;
    public Integer minimumMatchedTokens;
    public String routingFloorScore;
    public Integer lookupTimeoutMs;
    public Strategy strategy;
    public AffinityRouting affinityRouting;
    public LoadAwareRouting loadAwareRouting;
    public Integer maxReplicas;
  }

  /** Opt-in load-aware routing; unset = upstream answers. */
  public static class LoadAwareRouting {
    public Integer pressureTokens;
    public String pressureBound;
    public Integer rankedReplicas;
    public String hintPressure;
    public CostModel costModel;
  }

  /** The cost-model strategy of load-aware routing; unset = the load-aware rules. */
  public static class CostModel {
    public Integer prefillTokensPerSecond;
    public String requestSeconds;
    public Integer slots;
  }

  /** Matching strategies. */
  public static class Strategy {
    public Boolean enableChainMatching;
    public Boolean requireChain;
    public Boolean enableTenantHot;
  }

  /** Cap-eviction algorithm. */
  public enum Eviction {
    LRU,
    LFU
  }

  /** Consistent-hash affinity fallback. */
  public enum AffinityRouting {
    @SerializedName("Enabled")
    ENABLED,
    @SerializedName("Disabled")
    DISABLED
  }
}
