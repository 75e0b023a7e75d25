package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;
import java.util.List;
import java.util.Map;

/**
 * Prefill and decode pools of a disaggregated deployment ({@code pdtopologies}, short name pdt).
 */
public final class PDTopology extends CustomResource<PDTopology.Spec, PDTopology.Status> {
  public static final CrdKind<PDTopology, PDTopologyList> CRD =
      new CrdKind<>(PDTopology.class, PDTopologyList.class, "PDTopology", "pdtopologies", true);

  public PDTopology() {
    super("PDTopology");
  }

  /** The pools, the accelerator kinds they run on, and how KV moves between them. */
  public static class Spec {
    public List<Pool> prefillPools;
    public List<Pool> decodePools;
    public List<AcceleratorType> acceleratorTypes;

    /** How KV moves from prefill to decode (LookupPDRoute's {@code transport_hint}). */
    public Transport transport;

    /** Uncached prompt tokens below which the decode replica prefills itself; 0 never. */
    public Integer decodeLocalPrefillTokens;

    /** Transfer bandwidth per link class. */
    public Links links;

    /** KV-cache bytes per token of the served model. */
    public Long kvBytesPerToken;
  }

  /** A pool of engine pods (a list map keyed by name). */
  public static class Pool {
    public String name;
    public Map<String, String> matchLabels;
    public Integer replicas;
    public String acceleratorType;
  }

  /** An accelerator kind (a list map keyed by name). */
  public static class AcceleratorType {
    public String name;
    public String vendor;
    public String model;
    public Map<String, String> matchLabels;
  }

  /** The KV transport between the pools. */
  public enum Transport {
    @SerializedName("Mooncake")
    MOONCAKE("Mooncake"),
    @SerializedName("NIXL")
    NIXL("NIXL"),
    @SerializedName("Direct")
    DIRECT("Direct");

    private final String text;

    Transport(final String text) {
      this.text = text;
    }

    /** The spelling of the CRD (and of the server's body). */
    public String text() {
      return text;
    }
  }

  /** KV transfer bandwidth in GB/s per link class (each > 0 when set). */
  public static class Links {
    public Double sameNodeGBps;
    public Double sameVendorGBps;
    public Double crossGBps;
  }

  /** A pool's role in the pair. */
  public enum Role {
    @SerializedName("Prefill")
    PREFILL,
    @SerializedName("Decode")
    DECODE
  }

  /** One pool as the controller resolved it. */
  public static class PoolStatus {
    public String name;
    public Role role;

    /** Running pods the pool's matchLabels select. */
    public Integer replicas;
  }

  /** Observed generation, conditions ({@code Ready}) and the resolved pools. */
  public static class Status extends ConditionedStatus {
    public List<PoolStatus> pools;
  }
}
