package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateRevision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PromptTemplateJson}: the {@code /prompt-templates} body, strict, each error naming its
 * field.
 */
class PromptTemplateJsonTest {
  static final String GOOD =
      """
      {"version":1,"templates":[{
        "namespace":"team-a","name":"support",
        "modelId":"meta-llama/Llama-3.1-8B-Instruct",
        "body":"{{.system}}\\n\\nUser: {{.question}}",
        "slots":[{"name":"system","type":"Stable","required":true},
                 {"name":"question","type":"Mutable","required":true,"description":"the user's turn"}]}]}
      """;

  static List<PromptTemplate> decode(final String body) throws JsonDecodeException {
    final byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return PromptTemplateJson.decode(b, b.length);
  }

  static void refused(final String body, final String message) {
    assertThatThrownBy(() -> decode(body))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessage(message);
  }

  @Test
  void decodesTheDesignBody() throws Exception {
    final List<PromptTemplate> ts = decode(GOOD);
    assertThat(ts)
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.ref()).isEqualTo("team-a/support");
              assertThat(t.spec().modelId()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
              assertThat(t.spec().body()).isEqualTo("{{.system}}\n\nUser: {{.question}}");
              assertThat(t.spec().slots()).hasSize(2);
              assertThat(t.spec().slots().get(1).type()).isEqualTo(SlotType.MUTABLE);
              assertThat(t.spec().slots().get(1).description()).isEqualTo("the user's turn");
              assertThat(t.revision()).isEqualTo(TemplateRevision.of(t.spec()));
            });
  }

  @Test
  void writeRoundTripsWithTheRevisionAndTheRevisionIsChecked() throws Exception {
    final List<PromptTemplate> ts = decode(GOOD);
    final String written = PromptTemplateJson.write(ts);
    assertThat(written)
        .startsWith("{\"version\":1,\"templates\":[{\"namespace\":\"team-a\",\"name\":\"support\",")
        .contains("\"revision\":\"" + ts.get(0).revision() + "\"");
    final List<PromptTemplate> again = decode(written);
    assertThat(again.get(0).spec()).isEqualTo(ts.get(0).spec());
    refused(
        written.replace(ts.get(0).revision(), "sha256:0000000000000000"),
        "templates[0].revision: \"sha256:0000000000000000\" is not the revision of this spec, \""
            + ts.get(0).revision()
            + "\" (leave it out to take the spec as it is)");
    assertThat(PromptTemplateJson.write(List.of())).isEqualTo("{\"version\":1,\"templates\":[]}");
  }

  @Test
  void anEmptySetIsValid() throws Exception {
    assertThat(decode("{\"version\":1,\"templates\":[]}")).isEmpty();
    assertThat(decode("{\"version\":1}")).isEmpty();
  }

  @Test
  void theEnvelopeIsStrict() {
    refused("", "empty body");
    refused("[]", "the body must be a JSON object");
    refused("{\"templates\":[]}", "version: must be 1, not absent");
    refused("{\"version\":2,\"templates\":[]}", "version: must be 1, not 2");
    refused("{\"version\":\"1\"}", "version: must be 1, not \"1\"");
    refused("{\"version\":1,\"extra\":0}", "extra: unknown field");
    refused("{\"version\":1,\"Templates\":[]}", "Templates: unknown field");
    refused("{\"version\":1,\"templates\":{}}", "templates: must be an array");
    refused("{\"version\":1} {}", "invalid JSON: content after the body's object");
    assertThatThrownBy(() -> decode("{\"version\":1,\"version\":1}"))
        .hasMessageStartingWith("invalid JSON: Duplicate field 'version'");
    assertThatThrownBy(() -> decode("{\"version\":1,")).hasMessageStartingWith("invalid JSON: ");
  }

  @Test
  void everyTemplateFieldIsNamedOnError() {
    final String t = "{\"version\":1,\"templates\":[%s]}";
    refused(t.formatted("1"), "templates[0]: must be an object");
    refused(t.formatted("{\"name\":\"a\",\"body\":\"x\"}"), "templates[0].namespace: required");
    refused(
        t.formatted("{\"namespace\":\"Team\",\"name\":\"a\",\"body\":\"x\"}"),
        "templates[0].namespace: \"Team\" is not a Kubernetes object name (lower-case letters,"
            + " digits, '-' and '.', starting and ending with a letter or digit)");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"x\",\"owner\":1}"),
        "templates[0].owner: unknown field");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":7}"),
        "templates[0].body: must be a string");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"\"}"),
        "templates[0].body: must not be empty");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"x\",\"slots\":{}}"),
        "templates[0].slots: must be an array");
    refused(
        t.formatted(
            "{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"{{.q}}\",\"slots\":[{\"name\":\"q\",\"type\":\"stable\"}]}"),
        "templates[0].slots[0].type: must be \"Stable\" or \"Mutable\", not \"stable\"");
    refused(
        t.formatted(
            "{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"{{.q}}\",\"slots\":[{\"name\":\"q\",\"type\":\"Stable\",\"required\":\"yes\"}]}"),
        "templates[0].slots[0].required: must be true or false");
    refused(
        t.formatted(
            "{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"x\",\"slots\":[{\"type\":\"Stable\"}]}"),
        "templates[0].slots[0].name: required");
    refused(
        t.formatted(
            "{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"{{.q}}\",\"slots\":[{\"name\":\"q\",\"type\":\"Stable\",\"x\":1}]}"),
        "templates[0].slots[0].x: unknown field");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"{{.nope}}\",\"slots\":[]}"),
        "templates[0].body: {{.nope}} at offset 0 names no slot of templates[0].slots");
    refused(
        t.formatted("{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"\\ud800\"}"),
        "templates[0].body: an unpaired surrogate escape at character 0 (not text)");
  }

  @Test
  void theTemplateRulesAreNamedUnderTheTemplatesIndex() {
    final String body =
        "{\"version\":1,\"templates\":[{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"x\"},"
            + "{\"namespace\":\"n\",\"name\":\"b\",\"body\":\"{{.m}}{{.s}}\",\"slots\":["
            + "{\"name\":\"m\",\"type\":\"Mutable\"},{\"name\":\"s\",\"type\":\"Stable\"}]}]}";
    assertThatThrownBy(() -> decode(body))
        .hasMessageStartingWith(
            "templates[1].body: Stable slot \"s\" at offset 6 comes after Mutable slot \"m\"");
  }

  @Test
  void aRepeatedRefIsRefused() {
    final String one = "{\"namespace\":\"n\",\"name\":\"a\",\"body\":\"x\"}";
    refused(
        "{\"version\":1,\"templates\":[" + one + "," + one + "]}",
        "templates[1]: \"n/a\" is already templates[0]");
  }
}
