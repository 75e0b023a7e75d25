package io.inferencecache.controlplane.controller.routing;

import static io.inferencecache.controlplane.controller.routing.PdFixtures.SPEC;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.pod;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PdTopologyBodyTest {
  private static final Map<String, Collection<V1Pod>> PODS =
      Map.of(
          "team-a",
          List.of(
              pod("pf-0", Map.of("role", "prefill"), "Running", "node-1"),
              pod("dc-0", Map.of("role", "decode"), "Running", "node-1"),
              pod("dc-1", Map.of("role", "decode"), "Failed", "node-2")));

  private static String build(final io.inferencecache.controlplane.k8s.model.PDTopology... t) {
    return PdTopologyBody.build(List.of(t), ns -> PODS.getOrDefault(ns, List.of()));
  }

  @Test
  void everyFieldOfTheSpecAndTheResolvedMembersReachTheBody() {
    final String spec =
        SPEC.substring(0, SPEC.length() - 1)
            + ",'transport':'NIXL','decodeLocalPrefillTokens':512,"
            + "'links':{'sameNodeGBps':300,'sameVendorGBps':50,'crossGBps':12.5},"
            + "'kvBytesPerToken':131072}";
    assertThat(JsonParser.parseString(build(topology("team-a", "llama-pd", spec))))
        .isEqualTo(
            JsonParser.parseString(
                ("{'version':1,'topologies':[{'namespace':'team-a','name':'llama-pd',"
                        + "'transport':'NIXL','decodeLocalPrefillTokens':512,"
                        + "'links':{'sameNodeGBps':300,'sameVendorGBps':50,'crossGBps':12.5},"
                        + "'kvBytesPerToken':131072,"
                        + "'prefillPools':[{'name':'prefill','acceleratorType':'h100',"
                        + "'members':[{'replicaId':'pf-0','node':'node-1'}]}],"
                        + "'decodePools':[{'name':'decode','acceleratorType':'h100',"
                        + "'members':[{'replicaId':'dc-0','node':'node-1'}]}],"
                        + "'acceleratorTypes':[{'name':'h100','vendor':'nvidia',"
                        + "'model':'H100-80GB'}]}]}")
                    .replace('\'', '"')));
    assertThat(build(topology("team-a", "llama-pd", spec))).contains("\"sameNodeGBps\":300,");
  }

  @Test
  void unsetOptionalFieldsAreOmittedAndAnEmptyPoolIsSentWithoutMembers() {
    final String body =
        build(
            topology(
                "team-b",
                "t",
                "{'prefillPools':[{'name':'p','matchLabels':{'role':'prefill'}}],"
                    + "'decodePools':[{'name':'d','matchLabels':{'role':'decode'}}]}"));
    assertThat(body)
        .isEqualTo(
            "{\"version\":1,\"topologies\":[{\"namespace\":\"team-b\",\"name\":\"t\","
                + "\"prefillPools\":[{\"name\":\"p\",\"members\":[]}],"
                + "\"decodePools\":[{\"name\":\"d\",\"members\":[]}]}]}");
  }

  @Test
  void topologiesAreOrderedByNamespaceAndNameAndAnInvalidOneIsLeftOut() {
    final String body =
        build(
            topology("team-b", "a", SPEC),
            topology("team-a", "z", SPEC),
            topology("team-a", "bad", "{'prefillPools':[],'decodePools':[]}"),
            topology("team-a", "b", SPEC));
    assertThat(JsonParser.parseString(body).getAsJsonObject().getAsJsonArray("topologies"))
        .extracting(
            e ->
                e.getAsJsonObject().get("namespace").getAsString()
                    + "/"
                    + e.getAsJsonObject().get("name").getAsString())
        .containsExactly("team-a/b", "team-a/z", "team-b/a");
  }

  @Test
  void noTopologyIsAnEmptySet() {
    assertThat(build()).isEqualTo("{\"version\":1,\"topologies\":[]}");
  }

  @Test
  void theServerUrlIsASiblingOfThePolicyUrl() {
    assertThat(SetPush.sibling("http://inference-cache-server:8081/policy", "pd-topologies"))
        .isEqualTo("http://inference-cache-server:8081/pd-topologies");
    assertThat(SetPush.sibling("https://gw.example/cache/policy", "prompt-templates"))
        .isEqualTo("https://gw.example/cache/prompt-templates");
  }
}
