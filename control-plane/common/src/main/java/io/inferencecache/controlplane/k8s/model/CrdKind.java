package io.inferencecache.controlplane.k8s.model;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/**
 * How one kind is addressed on the API server, and the generic client for it.
 *
 * @param type the object class
 * @param listType the list class
 * @param kind the kind name
 * @param plural the resource (plural) name
 * @param namespaced false for cluster-scoped kinds
 * @param <O> object type
 * @param <L> list type
 */
public record CrdKind<O extends CustomResource<?, ?>, L extends CustomResourceList<O>>(
    Class<O> type, Class<L> listType, String kind, String plural, boolean namespaced) {

  /**
   * The six kinds, in the order of the specification. A method, not a constant: each kind's {@code
   * CRD} constant is a {@code CrdKind}, so a constant list here would read them while their classes
   * are still initialising (whichever class a program touches first) and hold nulls.
   */
  public static java.util.List<CrdKind<?, ?>> all() {
    return java.util.List.of(
        CacheBackend.CRD,
        CachePolicy.CRD,
        CacheTenant.CRD,
        CacheIndexResource.CRD,
        PromptTemplate.CRD,
        PDTopology.CRD);
  }

  /** The CustomResourceDefinition name, {@code <plural>.inferencecache.io}. */
  public String crdName() {
    return plural + "." + CustomResource.GROUP;
  }

  /** A generic client for this kind over {@code client}. */
  public GenericKubernetesApi<O, L> api(ApiClient client) {
    return new GenericKubernetesApi<>(
        type, listType, CustomResource.GROUP, CustomResource.VERSION, plural, client);
  }
}
