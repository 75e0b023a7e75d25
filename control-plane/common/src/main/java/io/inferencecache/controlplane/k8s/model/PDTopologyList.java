package io.inferencecache.controlplane.k8s.model;

/** A list of {@link PDTopology}. */
public final class PDTopologyList extends CustomResourceList<PDTopology> {
  public PDTopologyList() {
    super("PDTopologyList");
  }
}
