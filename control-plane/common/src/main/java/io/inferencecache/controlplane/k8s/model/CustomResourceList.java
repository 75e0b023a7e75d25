package io.inferencecache.controlplane.k8s.model;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * A list of one kind, as the API server returns it.
 *
 * @param <T> item type
 */
public abstract class CustomResourceList<T extends CustomResource<?, ?>>
    implements KubernetesListObject {
  private String apiVersion = CustomResource.API_VERSION;
  private String kind;
  private V1ListMeta metadata;
  private List<T> items = new ArrayList<>();

  protected CustomResourceList(String kind) {
    this.kind = kind;
  }

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  @Override
  public V1ListMeta getMetadata() {
    return metadata;
  }

  public void setMetadata(V1ListMeta metadata) {
    this.metadata = metadata;
  }

  @Override
  public List<T> getItems() {
    return items;
  }

  public void setItems(List<T> items) {
    this.items = items;
  }
}
