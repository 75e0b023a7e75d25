package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.Map;

/** PDTopology objects from JSON text and pods with labels, phase and node. */
final class PdFixtures {
  private PdFixtures() {}

  /** A PDTopology {@code ns/name} with {@code spec} (JSON, single quotes allowed). */
  static PDTopology topology(final String ns, final String name, final String spec) {
    final PDTopology t =
        JSON.deserialize(
            ("{'apiVersion':'inferencecache.io/v1alpha1','kind':'PDTopology',"
                    + "'metadata':{'namespace':'"
                    + ns
                    + "','name':'"
                    + name
                    + "','generation':3},'spec':"
                    + spec
                    + "}")
                .replace('\'', '"'),
            PDTopology.class);
    return t;
  }

  /** The spec of design's example: pools prefill (role=prefill) and decode (role=decode). */
  static final String SPEC =
      "{'prefillPools':[{'name':'prefill','acceleratorType':'h100','matchLabels':{'role':'prefill'}}],"
          + "'decodePools':[{'name':'decode','acceleratorType':'h100','matchLabels':{'role':'decode'}}],"
          + "'acceleratorTypes':[{'name':'h100','vendor':'nvidia','model':'H100-80GB'}]}";

  static V1Pod pod(
      final String name, final Map<String, String> labels, final String phase, final String node) {
    return new V1Pod()
        .metadata(new V1ObjectMeta().namespace("team-a").name(name).labels(labels))
        .spec(new V1PodSpec().nodeName(node))
        .status(new V1PodStatus().phase(phase));
  }
}
