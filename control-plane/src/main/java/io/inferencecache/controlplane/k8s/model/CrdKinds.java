package io.inferencecache.controlplane.k8s.model;

import java.util.List;

/**
 * The six kinds, in the order of the specification. A class of its own: were the list a field of
 * {@link CrdKind}, the first use of a kind class (whose {@code CRD} constant builds a {@code
 * CrdKind}) would initialise the list while that constant is still null.
 */
public final class CrdKinds {
  public static final List<CrdKind<?, ?>> ALL =
      List.of(
          CacheBackend.CRD,
          CachePolicy.CRD,
          CacheTenant.CRD,
          CacheIndex.CRD,
          PromptTemplate.CRD,
          PDTopology.CRD);

  private CrdKinds() {}
}
