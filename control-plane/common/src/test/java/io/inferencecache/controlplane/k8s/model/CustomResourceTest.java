package io.inferencecache.controlplane.k8s.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import org.junit.jupiter.api.Test;

class CustomResourceTest {
  @Test
  void keyIsNamespaceSlashNameAndAClusterScopedObjectHasAnEmptyNamespace() {
    final CacheTenant t = new CacheTenant();
    t.setMetadata(new V1ObjectMeta().namespace("team-a").name("t"));
    assertThat(t.key()).isEqualTo("team-a/t");
    final CacheIndexResource index = new CacheIndexResource();
    index.setMetadata(new V1ObjectMeta().name(CacheIndexResource.CLUSTER_DEFAULT));
    assertThat(index.key()).isEqualTo("/cluster-default");
    assertThat(new CachePolicy().key()).isEqualTo("/");
  }

  @Test
  void generationIsZeroWhileUnset() {
    final CachePolicy p = new CachePolicy();
    assertThat(p.generation()).isZero();
    p.setMetadata(new V1ObjectMeta().name("p"));
    assertThat(p.generation()).isZero();
    p.getMetadata().setGeneration(7L);
    assertThat(p.generation()).isEqualTo(7);
  }

  @Test
  void referenceNamesTheKindAndTheObject() {
    final CacheBackend b = new CacheBackend();
    b.setMetadata(new V1ObjectMeta().namespace("ns").name("redis").uid("u-1"));
    assertThat(b.reference().getApiVersion()).isEqualTo("inferencecache.io/v1alpha1");
    assertThat(b.reference().getKind()).isEqualTo("CacheBackend");
    assertThat(b.reference().getNamespace()).isEqualTo("ns");
    assertThat(b.reference().getName()).isEqualTo("redis");
    assertThat(b.reference().getUid()).isEqualTo("u-1");
  }
}
