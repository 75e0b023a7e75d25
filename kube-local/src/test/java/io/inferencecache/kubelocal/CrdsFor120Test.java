package io.inferencecache.kubelocal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class CrdsFor120Test {

  private static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: things.example.com
      spec:
        versions:
          - name: v1
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  mode: {type: string, default: ""}
                  name: {type: string, default: "x"}
                  default:
                    type: object
                    properties:
                      inner: {type: string, default: ''}
      """;

  @Test
  void stripsEveryEmptyStringDefaultAndNothingElse() {
    CrdsFor120.Rewritten rewritten = CrdsFor120.rewrite(CRD, "test");

    Map<String, Object> properties = properties(rewritten.yaml());
    assertThat(field(properties, "mode")).containsOnlyKeys("type");
    assertThat(field(properties, "name")).containsEntry("default", "x");
    Map<String, Object> nested = field(properties, "default");
    assertThat(field(field(nested, "properties"), "inner")).containsOnlyKeys("type");
    assertThat(rewritten.names()).containsExactly("things.example.com");
  }

  @Test
  void keepsOnlyTheCrdDocuments() {
    String yaml =
        CRD.replace("things.example.com", "a.example.com")
            + "---\nkind: Kustomization\nresources: [a.yaml]\n---\n"
            + CRD.replace("things.example.com", "b.example.com");

    CrdsFor120.Rewritten rewritten = CrdsFor120.rewrite(yaml, "test");

    assertThat(rewritten.names()).containsExactly("a.example.com", "b.example.com");
    assertThat(rewritten.yaml()).doesNotContain("Kustomization");
  }

  @Test
  void refusesYamlWithoutACrd() {
    assertThatThrownBy(() -> CrdsFor120.rewrite("kind: ConfigMap\n", "cm.yaml"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cm.yaml: no CustomResourceDefinition found");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> properties(String yaml) {
    Map<String, Object> crd =
        (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    Map<String, Object> version = ((List<Map<String, Object>>) spec.get("versions")).get(0);
    Map<String, Object> schema = (Map<String, Object>) version.get("schema");
    return field((Map<String, Object>) schema.get("openAPIV3Schema"), "properties");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> field(Map<String, Object> map, String key) {
    return (Map<String, Object>) map.get(key);
  }
}
