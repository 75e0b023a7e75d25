package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromptTemplateValidatorTest {
  private final PromptTemplateValidator validator = new PromptTemplateValidator();

  private static String template(final String spec) {
    return "{'metadata':{'name':'t','namespace':'ns'},'spec':" + spec + "}";
  }

  @Test
  void theTemplatesRulesRefuseNamingEachField() {
    final AdmissionResponse r =
        validator.handle(
            Reviews.create(
                "PromptTemplate",
                "ns",
                template(
                    "{'body':'{{.q}} {{.sys}} {{.nope}}','slots':[{'name':'sys','type':'Stable'},"
                        + "{'name':'q','type':'Mutable'},{'name':'sys','type':'Chatty'}]}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.message())
        .startsWith("PromptTemplate.inferencecache.io \"t\" is invalid: [")
        .contains(
            "spec.slots[2].type: Unsupported value: \"Chatty\": supported values: \"Stable\","
                + " \"Mutable\"")
        .contains("spec.slots[2].name: Invalid value: \"sys\": \"sys\" is already the name of");
    final AdmissionResponse body =
        validator.handle(
            Reviews.create(
                "PromptTemplate",
                "ns",
                template(
                    "{'body':'{{.q}} {{.sys}} {{.nope}}','slots':[{'name':'sys','type':'Stable'},"
                        + "{'name':'q','type':'Mutable'}]}")));
    assertThat(body.message())
        .contains("spec.body: Invalid value: \"{{.q}} {{.sys}} {{.nope}}\": {{.nope}} at offset")
        .contains("comes after Mutable slot \"q\"");
  }

  @Test
  void aValidTemplateIsAdmitted() {
    assertThat(
            validator
                .handle(
                    Reviews.create(
                        "PromptTemplate",
                        "ns",
                        template(
                            "{'modelId':'m','body':'{{.sys}} {{.q}}','slots':[{'name':'sys',"
                                + "'type':'Stable','required':true},{'name':'q','type':'Mutable'}]}")))
                .allowed())
        .isTrue();
  }
}
