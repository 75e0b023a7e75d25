package io.inferencecache.controlplane.controller.routing;

import static io.inferencecache.controlplane.controller.routing.PdFixtures.SPEC;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.pod;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import io.inferencecache.controlplane.api.PdTopologyJson;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.charset.StandardCharsets;
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

  private static String build(final PDTopology... t) {
    return PdTopologyBody.build(List.of(t), ns -> PODS.getOrDefault(ns, List.of()));
  }

  /** What the server's codec reads from {@code body}. */
  private static PdTopologySnapshot decoded(final String body) throws Exception {
    final byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return PdTopologyJson.decode(b, b.length);
  }

  @Test
  void everyFieldOfTheSpecAndTheResolvedMembersReachTheBody() throws Exception {
    final String spec =
        SPEC.substring(0, SPEC.length() - 1)
            + ",'transport':'NIXL','decodeLocalPrefillTokens':512,"
            + "'links':{'sameNodeGBps':300,'sameVendorGBps':50,'crossGBps':12.5},"
            + "'kvBytesPerToken':131072}";
    final String body = build(topology("team-a", "llama-pd", spec));
    assertThat(JsonParser.parseString(body))
        .isEqualTo(
            JsonParser.parseString(
                ("{'version':1,'topologies':[{'namespace':'team-a','name':'llama-pd',"
                        + "'transport':'NIXL','decodeLocalPrefillTokens':512,"
                        + "'links':{'sameNodeGBps':300.0,'sameVendorGBps':50.0,'crossGBps':12.5},"
                        + "'kvBytesPerToken':131072,"
                        + "'prefillPools':[{'name':'prefill','acceleratorType':'h100',"
                        + "'members':[{'replicaId':'pf-0','node':'node-1'}]}],"
                        + "'decodePools':[{'name':'decode','acceleratorType':'h100',"
                        + "'members':[{'replicaId':'dc-0','node':'node-1'}]}],"
                        + "'acceleratorTypes':[{'name':'h100','vendor':'nvidia',"
                        + "'model':'H100-80GB'}]}]}")
                    .replace('\'', '"')));
    final PdTopology t = decoded(body).topologies().get(0);
    assertThat(t.transport()).isEqualTo("NIXL");
    assertThat(t.links().crossGBps()).isEqualTo(12.5);
    assertThat(t.decodePools().get(0).members()).containsExactly(new PdMember("dc-0", "node-1"));
  }

  @Test
  void unsetOptionalFieldsTakeTheServersDefaultsAndAnEmptyPoolHasNoMembers() throws Exception {
    final String body =
        build(
            topology(
                "team-b",
                "t",
                "{'prefillPools':[{'name':'p','matchLabels':{'role':'prefill'}}],"
                    + "'decodePools':[{'name':'d','matchLabels':{'role':'decode'}}],"
                    + "'links':{'crossGBps':25}}"));
    final PdTopology t = decoded(body).topologies().get(0);
    assertThat(t.transport()).isEmpty();
    assertThat(t.decodeLocalPrefillTokens()).isZero();
    assertThat(t.kvBytesPerToken()).isEqualTo(PdTopology.KV_BYTES_PER_TOKEN_DEFAULT);
    assertThat(t.links().sameNodeGBps()).isEqualTo(300);
    assertThat(t.links().sameVendorGBps()).isEqualTo(50);
    assertThat(t.links().crossGBps()).isEqualTo(25);
    assertThat(t.prefillPools().get(0).members()).isEmpty();
    assertThat(t.decodePools().get(0).acceleratorType()).isEmpty();
  }

  @Test
  void topologiesAreOrderedByNamespaceAndNameAndAnInvalidOneIsLeftOut() throws Exception {
    final String body =
        build(
            topology("team-b", "a", SPEC),
            topology("team-a", "z", SPEC),
            topology("team-a", "bad", "{'prefillPools':[],'decodePools':[]}"),
            topology("team-a", "b", SPEC));
    assertThat(decoded(body).topologies())
        .extracting(t -> t.namespace() + "/" + t.name())
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
