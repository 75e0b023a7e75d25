package io.inferencecache.controlplane.k8s.model;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;

/**
 * An {@code inferencecache.io/v1alpha1} object: type metadata, object metadata, spec and status.
 *
 * @param <S> spec type
 * @param <T> status type
 */
public abstract class CustomResource<S, T> implements KubernetesObject {
  /** API group of every kind of this package. */
  public static final String GROUP = "inferencecache.io";

  /** API version of every kind of this package. */
  public static final String VERSION = "v1alpha1";

  /** {@code apiVersion} value of every kind of this package. */
  public static final String API_VERSION = GROUP + "/" + VERSION;

  private String apiVersion = API_VERSION;
  private String kind;
  private V1ObjectMeta metadata;
  private S spec;
  private T status;

  protected CustomResource(String kind) {
    this.kind = kind;
  }

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata;
  }

  public void setMetadata(V1ObjectMeta metadata) {
    this.metadata = metadata;
  }

  public S getSpec() {
    return spec;
  }

  public void setSpec(S spec) {
    this.spec = spec;
  }

  public T getStatus() {
    return status;
  }

  public void setStatus(T status) {
    this.status = status;
  }

  /** {@code namespace/name} (a cluster-scoped object's namespace reads as empty). */
  public String key() {
    final String ns = metadata == null ? null : metadata.getNamespace();
    final String name = metadata == null ? null : metadata.getName();
    return (ns == null ? "" : ns) + "/" + (name == null ? "" : name);
  }

  /** {@code metadata.generation}, 0 while unset. */
  public long generation() {
    final Long g = metadata == null ? null : metadata.getGeneration();
    return g == null ? 0 : g;
  }

  /** A reference to this object (events name it as their subject). */
  public V1ObjectReference reference() {
    return new V1ObjectReference()
        .apiVersion(API_VERSION)
        .kind(kind)
        .namespace(metadata == null ? null : metadata.getNamespace())
        .name(metadata == null ? null : metadata.getName())
        .uid(metadata == null ? null : metadata.getUid());
  }
}
