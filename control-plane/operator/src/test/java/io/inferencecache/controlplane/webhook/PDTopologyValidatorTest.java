package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PDTopologyValidatorTest {
  private final PDTopologyValidator validator = new PDTopologyValidator();

  private static String topology(final String spec) {
    return "{'metadata':{'name':'t','namespace':'ns'},'spec':" + spec + "}";
  }

  @Test
  void everyBrokenRuleIsOneCauseNamingItsField() {
    final AdmissionResponse r =
        validator.handle(
            Reviews.create(
                "PDTopology",
                "ns",
                topology(
                    "{'prefillPools':[{'name':'a','matchLabels':{'r':'p'}}],"
                        + "'decodePools':[{'name':'a','acceleratorType':'x'}],"
                        + "'transport':'RDMA','links':{'crossGBps':0}}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.message())
        .startsWith("PDTopology.inferencecache.io \"t\" is invalid: [")
        .contains(
            "spec.decodePools[0].name: Duplicate value: \"a\": pool names are unique across"
                + " prefill and decode pools; spec.prefillPools[0] has it already")
        .contains("spec.decodePools[0].matchLabels: Required value")
        .contains("spec.decodePools[0].acceleratorType: Invalid value: \"x\"")
        .contains(
            "spec.transport: Unsupported value: \"RDMA\": supported values: \"Mooncake\","
                + " \"NIXL\", \"Direct\"")
        .contains("spec.links.crossGBps: Invalid value: \"0.0\"");
  }

  @Test
  void aCompleteTopologyIsAdmittedAndAnOldErrorIsGrandfatheredOnUpdate() {
    final String good =
        topology(
            "{'prefillPools':[{'name':'p','matchLabels':{'r':'p'}}],"
                + "'decodePools':[{'name':'d','matchLabels':{'r':'d'}}],'transport':'NIXL'}");
    assertThat(validator.handle(Reviews.create("PDTopology", "ns", good)).allowed()).isTrue();
    final String noLabels =
        topology(
            "{'prefillPools':[{'name':'p'}],'decodePools':[{'name':'d','matchLabels':{'r':'d'}}]}");
    final String noLabelsNewCount =
        topology(
            "{'prefillPools':[{'name':'p','replicas':2}],"
                + "'decodePools':[{'name':'d','matchLabels':{'r':'d'}}]}");
    assertThat(
            validator
                .handle(Reviews.update("PDTopology", "ns", noLabelsNewCount, noLabels))
                .allowed())
        .isTrue();
  }
}
