package io.inferencecache.controlplane.k8s.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.validation.CrdDocuments;
import io.kubernetes.client.custom.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CrdSchemaMatchesModelTest {
  static Stream<CrdKind<?, ?>> kinds() {
    return CrdKind.all().stream();
  }

  @ParameterizedTest
  @MethodSource("kinds")
  @SuppressWarnings("unchecked")
  void everySchemaFieldIsAModelFieldOfTheSameTypeAndBack(CrdKind<?, ?> kind) {
    Map<String, Object> schema = CrdDocuments.schema(kind);
    Map<String, Object> props = (Map<String, Object>) schema.get("properties");
    assertThat(props).containsOnlyKeys("apiVersion", "kind", "metadata", "spec", "status");
    assertThat(SchemaModelDiff.diff(schema, kind.type())).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("kinds")
  @SuppressWarnings("unchecked")
  void crdNamesAndScopeMatchTheKind(CrdKind<?, ?> kind) throws Exception {
    Map<String, Object> crd = CrdDocuments.crd(kind);
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    Map<String, Object> names = (Map<String, Object>) spec.get("names");
    assertThat(((Map<String, Object>) crd.get("metadata")).get("name")).isEqualTo(kind.crdName());
    assertThat(spec.get("group")).isEqualTo(CustomResource.GROUP);
    assertThat(names.get("kind")).isEqualTo(kind.kind());
    assertThat(names.get("plural")).isEqualTo(kind.plural());
    assertThat(names.get("listKind")).isEqualTo(kind.kind() + "List");
    assertThat(spec.get("scope")).isEqualTo(kind.namespaced() ? "Namespaced" : "Cluster");
    assertThat(kind.type().getDeclaredConstructor().newInstance().getKind()).isEqualTo(kind.kind());
    assertThat(kind.listType().getDeclaredConstructor().newInstance().getKind())
        .isEqualTo(kind.kind() + "List");
    List<Map<String, Object>> versions = (List<Map<String, Object>>) spec.get("versions");
    assertThat(versions)
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.get("name")).isEqualTo(CustomResource.VERSION);
              assertThat(v.get("subresources")).isEqualTo(Map.of("status", Map.of()));
            });
  }

  static class Sample {
    public String name;
    public Integer count;
    public Long extra;
    public List<Quantity> sizes;
    public Map<String, Integer> labels;
    public Color color;
  }

  enum Color {
    RED
  }

  @Test
  void theDiffReportsMissingFieldsWrongTypesAndEnumValues() {
    Map<String, Object> schema =
        Map.of(
            "type",
            "object",
            "properties",
            Map.of(
                "name", Map.of("type", "string"),
                "count", Map.of("type", "integer", "format", "int64"),
                "gone", Map.of("type", "boolean"),
                "sizes", Map.of("type", "array", "items", Map.of("type", "string")),
                "labels",
                    Map.of("type", "object", "additionalProperties", Map.of("type", "string")),
                "color", Map.of("type", "string", "enum", List.of("RED", "BLUE"))));
    assertThat(SchemaModelDiff.diff(schema, Sample.class))
        .containsExactlyInAnyOrder(
            "gone: in the schema, not in " + Sample.class.getName(),
            "extra: in " + Sample.class.getName() + ", not in the schema",
            "count: schema integer int64 but Java java.lang.Integer",
            "sizes[]: schema string but Java io.kubernetes.client.custom.Quantity",
            "labels[*]: schema string but Java java.lang.Integer",
            "color: enum [BLUE, RED] but " + Color.class.getName() + " has [RED]");
  }
}
