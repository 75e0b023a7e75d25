package io.inferencecache.controlplane.k8s.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.kubernetes.client.openapi.JSON;
import java.util.List;
import org.junit.jupiter.api.Test;

class PdTopologyRulesTest {
  private static PDTopology.Spec spec(final String json) {
    return JSON.deserialize(json.replace('\'', '"'), PDTopology.Spec.class);
  }

  private static List<String> check(final String json, final String transport) {
    return PdTopologyRules.check(spec(json), transport).stream()
        .map(PdTopologyRules.Violation::toString)
        .toList();
  }

  private static final String GOOD =
      "{'prefillPools':[{'name':'p','acceleratorType':'h100','matchLabels':{'r':'p'}}],"
          + "'decodePools':[{'name':'d','matchLabels':{'r':'d'}}],"
          + "'acceleratorTypes':[{'name':'h100'}],'transport':'Mooncake',"
          + "'decodeLocalPrefillTokens':0,'kvBytesPerToken':1,"
          + "'links':{'sameNodeGBps':0.5,'sameVendorGBps':1,'crossGBps':2}}";

  @Test
  void aCompleteSpecPasses() {
    assertThat(check(GOOD, "Mooncake")).isEmpty();
    assertThat(check(GOOD, null)).isEmpty();
  }

  @Test
  void poolNamesAreUniqueWithinAndAcrossRoles() {
    assertThat(
            check(
                "{'prefillPools':[{'name':'a','matchLabels':{'r':'1'}},"
                    + "{'name':'a','matchLabels':{'r':'2'}}],"
                    + "'decodePools':[{'name':'b','matchLabels':{'r':'3'}},"
                    + "{'name':'a','matchLabels':{'r':'4'}}]}",
                null))
        .containsExactly(
            "spec.prefillPools[1].name (\"a\"): pool names are unique across prefill and decode"
                + " pools; spec.prefillPools[0] has it already",
            "spec.decodePools[1].name (\"a\"): pool names are unique across prefill and decode"
                + " pools; spec.prefillPools[0] has it already");
  }

  @Test
  void eachRoleNeedsAPoolAndEachPoolANameAndLabels() {
    assertThat(check("{'prefillPools':[{'matchLabels':{}}]}", null))
        .containsExactly(
            "spec.prefillPools[0].name: a pool needs a name",
            "spec.prefillPools[0].matchLabels: a pool selects its pods by labels; an empty"
                + " selector would take every pod",
            "spec.decodePools: a PDTopology needs at least one pool of each role");
  }

  @Test
  void anAcceleratorTypeMustNameAnEntryAndEntriesAreUnique() {
    assertThat(
            check(
                "{'prefillPools':[{'name':'p','acceleratorType':'a100','matchLabels':{'r':'p'}}],"
                    + "'decodePools':[{'name':'d','matchLabels':{'r':'d'}}],"
                    + "'acceleratorTypes':[{'name':'h100'},{'name':'h100'}]}",
                null))
        .containsExactly(
            "spec.acceleratorTypes[1].name (\"h100\"): two acceleratorTypes share this name",
            "spec.prefillPools[0].acceleratorType (\"a100\"): names no entry of"
                + " spec.acceleratorTypes");
  }

  @Test
  void numbersOutOfRangeAndAnUnknownTransportAreNamed() {
    assertThat(
            check(
                "{'prefillPools':[{'name':'p','replicas':-1,'matchLabels':{'r':'p'}}],"
                    + "'decodePools':[{'name':'d','matchLabels':{'r':'d'}}],"
                    + "'decodeLocalPrefillTokens':-1,'kvBytesPerToken':0,"
                    + "'links':{'sameNodeGBps':0,'crossGBps':-3}}",
                "RDMA"))
        .containsExactly(
            "spec.prefillPools[0].replicas (\"-1\"): must be 0 or more",
            "spec.transport (\"RDMA\"): supported values: \"Mooncake\", \"NIXL\", \"Direct\"",
            "spec.decodeLocalPrefillTokens (\"-1\"): must be 0 (never decode-local) or more",
            "spec.kvBytesPerToken (\"0\"): must be greater than 0",
            "spec.links.sameNodeGBps (\"0.0\"): a bandwidth in GB/s, greater than 0",
            "spec.links.crossGBps (\"-3.0\"): a bandwidth in GB/s, greater than 0");
  }

  @Test
  void noSpecIsOneViolation() {
    assertThat(PdTopologyRules.check(null, null))
        .extracting(PdTopologyRules.Violation::field)
        .containsExactly("spec");
  }
}
