package io.inferencecache.controlplane.k8s.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.validation.CrdCelRules.Violation;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every CEL rule of the shipped CRDs, read from the YAML, against a valid and an invalid object.
 */
class CrdCelRulesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static final String POD_LOCAL =
      """
      spec:
        runtime: VLLM
        lmCache:
          topology: PodLocal
          podLocal:
            server: {image: i, port: 6555, maxWorkers: 1, resources: {}, l1Capacity: %s}
      """;
  private static final String NODE_LOCAL =
      """
      spec:
        runtime: VLLM
        lmCache:
          topology: NodeLocal
          nodeLocal:
            server: {image: i, port: 6555, httpPort: 6556, maxGPUWorkers: 1, maxCPUWorkers: 1,
                     resources: {}, l1Capacity: %s}
      """;

  /** kind, rule location, a valid object, invalid objects, the spec's message. */
  private record Case(
      CrdKind<?, ?> kind, String path, String valid, List<String> invalid, String message) {}

  private static final List<Case> CASES =
      List.of(
          new Case(
              CachePolicy.CRD,
              "spec",
              "spec: {strategy: {enableChainMatching: true, requireChain: true}}",
              List.of("spec: {strategy: {enableChainMatching: false, requireChain: true}}"),
              "strategy.requireChain requires strategy.enableChainMatching"),
          new Case(
              CachePolicy.CRD,
              "spec.loadAwareRouting",
              "spec: {loadAwareRouting: {pressureBound: '1.5'}}",
              List.of(
                  "spec: {loadAwareRouting: {pressureBound: '0'}}",
                  "spec: {loadAwareRouting: {pressureBound: '0.000'}}"),
              "loadAwareRouting.pressureBound must be greater than zero"),
          new Case(
              CachePolicy.CRD,
              "spec.loadAwareRouting.costModel",
              "spec: {loadAwareRouting: {costModel: {requestSeconds: '2.5'}}}",
              List.of(
                  "spec: {loadAwareRouting: {costModel: {requestSeconds: '0'}}}",
                  "spec: {loadAwareRouting: {costModel: {requestSeconds: '0.0'}}}"),
              "loadAwareRouting.costModel.requestSeconds must be greater than zero"),
          new Case(
              CacheBackend.CRD,
              "spec.lmCache.podLocal.server.l1Capacity",
              POD_LOCAL.formatted("8Gi"),
              List.of(
                  POD_LOCAL.formatted("'0'"), POD_LOCAL.formatted("0"), POD_LOCAL.formatted("0Gi")),
              "l1Capacity must be greater than zero"),
          new Case(
              CacheBackend.CRD,
              "spec.lmCache.nodeLocal.server.l1Capacity",
              NODE_LOCAL.formatted("512Mi"),
              List.of(NODE_LOCAL.formatted("'0'"), NODE_LOCAL.formatted("0")),
              "l1Capacity must be greater than zero"));

  static Stream<Arguments> shippedRules() {
    return CrdKind.all().stream()
        .flatMap(k -> CrdCelRules.forKind(k).rules().stream().map(r -> Arguments.of(k.kind(), r)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("shippedRules")
  void everyShippedRuleAcceptsAValidObjectAndRefusesAnInvalidOneWithTheSpecMessage(
      String kindName, CrdCelRules.Rule rule) throws Exception {
    Case c =
        CASES.stream()
            .filter(x -> x.kind.kind().equals(kindName) && x.path.equals(rule.schemaPath()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no test case for " + kindName + " " + rule));
    CrdCelRules rules = CrdCelRules.forKind(c.kind);
    assertThat(rule.message()).isEqualTo(c.message);
    assertThat(rules.validate(object(c.valid))).isEmpty();
    for (String invalid : c.invalid) {
      assertThat(rules.validate(object(invalid)))
          .as(invalid)
          .containsExactly(new Violation(c.path, c.message, rule.expression()));
    }
  }

  @Test
  void theShippedRuleSetIsTheOneTheSpecNames() {
    long count = shippedRules().count();
    assertThat(count).isEqualTo(CASES.size());
  }

  @Test
  void requireChainAloneIsAcceptedAndTheRuleSkipsAnAbsentStrategy() throws Exception {
    CrdCelRules rules = CrdCelRules.forKind(CachePolicy.CRD);
    assertThat(rules.validate(object("spec: {strategy: {requireChain: true}}"))).isEmpty();
    assertThat(rules.validate(object("spec: {strategy: {enableChainMatching: false}}"))).isEmpty();
    assertThat(rules.validate(object("spec: {}"))).isEmpty();
  }

  @Test
  void anAbsentL1CapacityRunsNoRule() throws Exception {
    CrdCelRules rules = CrdCelRules.forKind(CacheBackend.CRD);
    assertThat(rules.validate(object("spec: {runtime: VLLM, lmCache: {topology: PodLocal}}")))
        .isEmpty();
  }

  private static final String SCHEMA =
      """
      type: object
      properties:
        spec:
          type: object
          properties:
            size:
              x-kubernetes-int-or-string: true
              x-kubernetes-validations:
              - rule: quantity(string(self)).isLessThan(quantity('1Gi'))
                message: size below 1Gi
            name:
              type: string
              x-kubernetes-validations:
              - rule: self == oldSelf
                message: name is immutable
            pools:
              type: array
              x-kubernetes-list-type: map
              x-kubernetes-list-map-keys: [name]
              items:
                type: object
                properties:
                  name: {type: string}
                  replicas: {type: integer}
                x-kubernetes-validations:
                - rule: self.replicas >= oldSelf.replicas
                  message: pools never shrink
                  fieldPath: .replicas
            labels:
              type: object
              additionalProperties:
                type: string
                x-kubernetes-validations:
                - rule: self.startsWith('x-')
      """;

  @Test
  void transitionRulesRunOnlyOnUpdateAndMatchListItemsByTheirKeys() throws Exception {
    CrdCelRules rules = CrdCelRules.fromSchema(object(SCHEMA));
    assertThat(rules.rules())
        .extracting(CrdCelRules.Rule::transition)
        .containsExactly(false, true, true, false);
    Map<String, Object> old =
        object("spec: {name: a, pools: [{name: p, replicas: 3}, {name: q, replicas: 1}]}");
    Map<String, Object> renamed =
        object(
            "spec: {name: b, pools: [{name: q, replicas: 0}, {name: p, replicas: 4}, {name: r, replicas: 0}]}");
    assertThat(rules.validate(renamed)).isEmpty();
    assertThat(rules.validate(renamed, old))
        .containsExactly(
            new Violation("spec.name", "name is immutable", "self == oldSelf"),
            new Violation(
                "spec.pools[0].replicas",
                "pools never shrink",
                "self.replicas >= oldSelf.replicas"));
  }

  @Test
  void aMissingMessageAndAnEvaluationErrorAreBothReported() throws Exception {
    CrdCelRules rules = CrdCelRules.fromSchema(object(SCHEMA));
    assertThat(rules.validate(object("spec: {size: 512Mi, labels: {a: x-ok, b: nope}}")))
        .containsExactly(
            new Violation(
                "spec.labels[b]", "failed rule: self.startsWith('x-')", "self.startsWith('x-')"));
    assertThat(rules.validate(object("spec: {size: 2Gi}")))
        .extracting(Violation::message)
        .containsExactly("size below 1Gi");
    assertThat(rules.validate(object("spec: {size: lots}")))
        .singleElement()
        .satisfies(
            v -> assertThat(v.message()).startsWith("rule evaluation error: ").contains("lots"));
  }

  @Test
  void aRuleThatDoesNotCompileOrUsesMessageExpressionIsRefusedAtLoad() throws Exception {
    assertThatThrownBy(
            () ->
                CrdCelRules.fromSchema(
                    object("type: object\nx-kubernetes-validations: [{rule: 'self.'}]")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not compile");
    assertThatThrownBy(
            () ->
                CrdCelRules.fromSchema(
                    object(
                        "type: object\nx-kubernetes-validations: [{rule: 'true', messageExpression: \"'m'\"}]")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("messageExpression");
  }

  static Map<String, Object> object(String yaml) throws Exception {
    return YAML.readValue(yaml, new TypeReference<Map<String, Object>>() {});
  }
}
