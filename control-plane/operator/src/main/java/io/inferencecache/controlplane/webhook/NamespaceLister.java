package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.model.CustomResourceList;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.util.List;

/**
 * Lists the objects of one kind in a namespace, live from the API server (never a cache: a
 * validator that judged uniqueness from a stale cache would admit a duplicate).
 *
 * @param <T> object type
 */
@FunctionalInterface
public interface NamespaceLister<T> {
  /**
   * The objects in {@code namespace}.
   *
   * @throws ApiException when the API server cannot answer
   */
  List<T> list(String namespace) throws ApiException;

  /** A lister over {@code kind}'s generic client. */
  static <O extends CustomResource<?, ?>, L extends CustomResourceList<O>> NamespaceLister<O> live(
      final CrdKind<O, L> kind, final ApiClient client) {
    final var api = kind.api(client);
    return namespace -> {
      final L list = api.list(namespace).throwsApiException().getObject();
      return list == null || list.getItems() == null ? List.of() : list.getItems();
    };
  }
}
