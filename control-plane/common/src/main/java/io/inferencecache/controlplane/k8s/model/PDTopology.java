package io.inferencecache.controlplane.k8s.model;

import java.util.List;
import java.util.Map;

/**
 * Prefill and decode pools of a disaggregated deployment ({@code pdtopologies}, short name pdt).
 */
public final class PDTopology extends CustomResource<PDTopology.Spec, ConditionedStatus> {
  public static final CrdKind<PDTopology, PDTopologyList> CRD =
      new CrdKind<>(PDTopology.class, PDTopologyList.class, "PDTopology", "pdtopologies", true);

  public PDTopology() {
    super("PDTopology");
  }

  /** The pools and the accelerator kinds they run on. */
  public static class Spec {
    public List<Pool> prefillPools;
    public List<Pool> decodePools;
    public List<AcceleratorType> acceleratorTypes;
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
}
