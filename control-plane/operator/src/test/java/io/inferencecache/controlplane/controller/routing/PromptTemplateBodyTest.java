package io.inferencecache.controlplane.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.api.PromptTemplateJson;
import io.inferencecache.controlplane.controller.backend.Conditions;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.validation.TemplateSpecs;
import io.inferencecache.templates.TemplateRevision;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Condition;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptTemplateBodyTest {
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 12, 6, 7, 0, 0, 0, ZoneOffset.UTC);

  static PromptTemplate template(final String ns, final String name, final String spec) {
    return JSON.deserialize(
        ("{'apiVersion':'inferencecache.io/v1alpha1','kind':'PromptTemplate',"
                + "'metadata':{'namespace':'"
                + ns
                + "','name':'"
                + name
                + "','generation':2},'spec':"
                + spec
                + "}")
            .replace('\'', '"'),
        PromptTemplate.class);
  }

  static final String SUPPORT =
      "{'modelId':'meta-llama/Llama-3.1-8B-Instruct','body':'{{.system}}\\n\\nUser: {{.question}}',"
          + "'slots':[{'name':'system','type':'Stable','required':true},"
          + "{'name':'question','type':'Mutable','required':true}]}";

  static final String MUTABLE_FIRST =
      "{'body':'{{.q}} then {{.sys}}','slots':[{'name':'sys','type':'Stable'},"
          + "{'name':'q','type':'Mutable'}]}";

  private static V1Condition ready(final PromptTemplate.Status st) {
    return Conditions.get(st.conditions, ReadyReconciler.READY);
  }

  @Test
  void theBodyIsTheServersCodecOfTheValidTemplatesInOrderWithTheirRevision() throws Exception {
    final String body =
        PromptTemplateBody.build(
            List.of(
                template("team-b", "a", SUPPORT),
                template("team-a", "bad", MUTABLE_FIRST),
                template("team-a", "support", SUPPORT)));
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    final List<io.inferencecache.templates.PromptTemplate> decoded =
        PromptTemplateJson.decode(bytes, bytes.length);
    assertThat(decoded).extracting(t -> t.ref()).containsExactly("team-a/support", "team-b/a");
    final String revision =
        TemplateRevision.of(TemplateSpecs.of(template("team-a", "support", SUPPORT).getSpec()));
    assertThat(decoded.get(0).revision()).isEqualTo(revision);
    assertThat(body).startsWith("{\"version\":1,\"templates\":[{\"namespace\":\"team-a\"");
    assertThat(body).contains("\"revision\":\"" + revision + "\"");
    assertThat(PromptTemplateBody.build(List.of())).isEqualTo("{\"version\":1,\"templates\":[]}");
  }

  @Test
  void aValidTemplateIsReadyWithTheServersRevision() {
    final PromptTemplate t = template("team-a", "support", SUPPORT);
    final PromptTemplate.Status st = PromptTemplateReconciler.verdict(t, null, T0);
    assertThat(st.observedGeneration).isEqualTo(2L);
    assertThat(st.templateRevision)
        .isEqualTo(TemplateRevision.of(TemplateSpecs.of(t.getSpec())))
        .startsWith("sha256:");
    assertThat(ready(st).getStatus()).isEqualTo("True");
    assertThat(ready(st).getReason()).isEqualTo("TemplateValid");
    assertThat(ready(st).getMessage())
        .isEqualTo(
            "revision "
                + st.templateRevision
                + ", 2 slots, model meta-llama/Llama-3.1-8B-Instruct");
  }

  @Test
  void anInvalidTemplateNamesTheFieldAndHasNoRevisionLikeTheServer() {
    final PromptTemplate.Status valid =
        PromptTemplateReconciler.verdict(template("team-a", "t", SUPPORT), null, T0);
    final PromptTemplate.Status st =
        PromptTemplateReconciler.verdict(
            template("team-a", "t", MUTABLE_FIRST), valid, T0.plusMinutes(1));
    assertThat(valid.templateRevision).startsWith("sha256:");
    assertThat(st.templateRevision).as("left out of the push: the server holds none").isNull();
    assertThat(ready(st).getStatus()).isEqualTo("False");
    assertThat(ready(st).getReason()).isEqualTo("InvalidTemplate");
    assertThat(ready(st).getMessage())
        .startsWith("not pushed to the server: spec.body: Stable slot \"sys\"")
        .contains("comes after Mutable slot \"q\"");
    assertThat(ready(st).getLastTransitionTime()).isEqualTo(T0.plusMinutes(1));
    assertThat(ready(valid).getStatus()).as("the old status is not changed").isEqualTo("True");
  }

  @Test
  void aTemplateWithThousandsOfViolationsGetsAConditionMessageTheApiServerTakes() {
    // 4,000 placeholders naming no slot: one violation each, far over the 32,768 characters the
    // CRD allows a condition message (a longer one makes the whole status write fail with 422,
    // leaving the previous verdict, and its revision, in place).
    final String body = "{{.undeclared}} ".repeat(4000);
    final PromptTemplate.Status st =
        PromptTemplateReconciler.verdict(
            template("team-a", "t", "{'body':'" + body + "','slots':[]}"), null, T0);
    assertThat(ready(st).getReason()).isEqualTo("InvalidTemplate");
    assertThat(ready(st).getMessage())
        .startsWith("not pushed to the server: spec.body: {{.undeclared}} at offset 0")
        .hasSizeLessThanOrEqualTo(Conditions.MAX_MESSAGE_CHARS)
        .endsWith("…");
  }
}
