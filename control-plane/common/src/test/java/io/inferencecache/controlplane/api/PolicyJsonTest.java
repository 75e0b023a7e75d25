package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.StrategySpec;
import io.inferencecache.engine.policy.TenantSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PolicyJsonTest {
  private static PolicySnapshot decode(final String json) throws JsonDecodeException {
    final byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return PolicyJson.decode(b, b.length);
  }

  @Test
  void canonicalSerializationIsPinned() {
    final PolicySnapshot s =
        new PolicySnapshot(
            7,
            List.of(PolicySpec.builder("team-a").routingFloorScore(0f).build()),
            List.of(TenantSpec.of("tenant-a", 10)));
    assertThat(PolicyJson.write(s))
        .isEqualTo(
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-a\",\"routingFloorScore\":0}],"
                + "\"tenants\":[{\"tenantID\":\"tenant-a\",\"maxIndexEntries\":10}]}");
  }

  @Test
  void canonicalSerializationRoundTripsEveryField() throws Exception {
    final PolicySnapshot s =
        new PolicySnapshot(
            7,
            List.of(
                PolicySpec.builder("team-a")
                    .evictionTTLNanos(900_000_000_000L)
                    .minimumPrefixTokens(32)
                    .minimumMatchedTokens(128)
                    .routingFloorScore(5f)
                    .lookupTimeoutMs(25)
                    .affinityRouting(true)
                    .eviction("lfu")
                    .strategy(new StrategySpec(true, false, true))
                    .build()),
            List.of(new TenantSpec("team-a", 100_000, "Fairness")));
    final String json = PolicyJson.write(s);
    assertThat(json)
        .isEqualTo(
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-a\",\"evictionTTL\":900000000000,"
                + "\"minimumPrefixTokens\":32,\"minimumMatchedTokens\":128,\"routingFloorScore\":5,"
                + "\"lookupTimeoutMs\":25,\"affinityRouting\":true,\"eviction\":\"lfu\","
                + "\"strategy\":{\"enableChainMatching\":true,\"requireChain\":false,"
                + "\"enableTenantHot\":true}}],\"tenants\":[{\"tenantID\":\"team-a\","
                + "\"maxIndexEntries\":100000,\"isolationMode\":\"Fairness\"}]}");
    assertThat(decode(json)).isEqualTo(s);
  }

  @Test
  void emptyPoliciesAreWrittenTenantsOmitted() {
    assertThat(PolicyJson.write(new PolicySnapshot(7, List.of(), List.of())))
        .isEqualTo("{\"version\":7,\"policies\":[]}");
  }

  @Test
  void keysMatchCaseInsensitivelyAndLastDuplicateWins() throws Exception {
    final PolicySnapshot s =
        decode(
            "{\"VERSION\":3,\"version\":6,\"Policies\":[{\"NameSpace\":\"a\","
                + "\"routingfloorscore\":0.5}],\"TENANTS\":[{\"tenantid\":\"t\",\"MaxIndexEntries\":4}]}");
    assertThat(s.version()).isEqualTo(6);
    assertThat(s.policies())
        .containsExactly(PolicySpec.builder("a").routingFloorScore(0.5f).build());
    assertThat(s.tenants()).containsExactly(TenantSpec.of("t", 4));
  }

  @Test
  void nullOnPointerMeansAbsentAndOnScalarKeepsZero() throws Exception {
    final PolicySnapshot s =
        decode(
            "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"routingFloorScore\":null,"
                + "\"affinityRouting\":null,\"strategy\":null,\"evictionTTL\":null,\"eviction\":null}],"
                + "\"tenants\":[{\"tenantID\":\"t\",\"maxIndexEntries\":null}]}");
    final PolicySpec p = s.policies().get(0);
    assertThat(p.routingFloorScore()).isNull();
    assertThat(p.affinityRouting()).isNull();
    assertThat(p.strategy()).isNull();
    assertThat(p.evictionTTLNanos()).isZero();
    assertThat(s.tenants().get(0).maxIndexEntries()).isZero();
    assertThat(decode("{\"version\":null}").version()).isZero();
    assertThat(decode("null").version()).isZero();
  }

  @Test
  void onlyTheFirstJsonValueIsRead() throws Exception {
    assertThat(decode("{\"version\":7} trailing garbage").version()).isEqualTo(7);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"version\":7.0}",
        "{\"version\":1e3}",
        "{\"version\":\"7\"}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"evictionTTL\":\"15m\"}]}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"minimumPrefixTokens\":2147483648}]}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"lookupTimeoutMs\":1.5}]}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"routingFloorScore\":1e39}]}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"affinityRouting\":\"yes\"}]}",
        "{\"version\":7,\"tenants\":[{\"tenantID\":\"t\",\"maxIndexEntries\":9223372036854775808}]}",
        "{\"version\":7,\"unknown\":1}",
        "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"strategy\":{\"bogus\":true}}]}",
        "not json",
        "",
        "[]",
        "{\"version\":7"
      })
  void rejectsWhatGoRejects(final String body) {
    assertThatThrownBy(() -> decode(body)).isInstanceOf(JsonDecodeException.class);
  }

  @Test
  void errorMessagesNameTheProblem() {
    assertThatThrownBy(() -> decode("{\"version\":7,\"nope\":1}"))
        .hasMessage("json: unknown field \"nope\"");
    assertThatThrownBy(() -> decode("{\"version\":7.5}"))
        .hasMessage(
            "json: cannot unmarshal number 7.5 into Go struct field PolicySnapshot.version of type"
                + " int");
    assertThatThrownBy(() -> decode("")).hasMessage("EOF");
  }

  @Test
  void repeatedStrategyKeyMergesLikeGo() throws Exception {
    final PolicySpec p =
        decode(
                "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"strategy\":{\"requireChain\":true},"
                    + "\"strategy\":{\"enableTenantHot\":false}}]}")
            .policies()
            .get(0);
    assertThat(p.strategy()).isEqualTo(new StrategySpec(null, true, false));
  }

  @Test
  void loadAwareRoutingDecodesAndRoundTrips() throws Exception {
    final PolicySnapshot s =
        decode(
            "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"loadAwareRouting\":"
                + "{\"pressureTokens\":2048,\"PressureBound\":1.5,\"rankedReplicas\":4,"
                + "\"hintPressure\":0.125}},{\"namespace\":\"b\",\"loadAwareRouting\":{}},"
                + "{\"namespace\":\"c\",\"loadAwareRouting\":null}]}");
    assertThat(s.policies().get(0).loadAwareRouting())
        .isEqualTo(new LoadAwareSpec(2048, 1.5f, 4, 0.125f));
    assertThat(s.policies().get(1).loadAwareRouting()).isEqualTo(LoadAwareSpec.DEFAULTS);
    assertThat(s.policies().get(2).loadAwareRouting()).isNull();
    final String written = PolicyJson.write(s);
    assertThat(written)
        .contains(
            "\"loadAwareRouting\":{\"pressureTokens\":2048,\"pressureBound\":1.5,"
                + "\"rankedReplicas\":4,\"hintPressure\":0.125}")
        .contains("{\"namespace\":\"b\",\"loadAwareRouting\":{}}");
    final byte[] b = written.getBytes(StandardCharsets.UTF_8);
    assertThat(PolicyJson.decode(b, b.length)).isEqualTo(s);
  }

  @Test
  void maxReplicasDecodesAndRoundTripsAndIsOmittedWhenZero() throws Exception {
    final PolicySnapshot s =
        decode(
            "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"maxReplicas\":8},"
                + "{\"namespace\":\"b\",\"maxReplicas\":0},{\"namespace\":\"c\"}]}");
    assertThat(s.policies().get(0).maxReplicas()).isEqualTo(8);
    assertThat(s.policies().get(1).maxReplicas()).isZero();
    assertThat(s.policies().get(2).maxReplicas()).isZero();
    final String written = PolicyJson.write(s);
    assertThat(written)
        .contains("{\"namespace\":\"a\",\"maxReplicas\":8}")
        .contains("{\"namespace\":\"b\"}");
    final byte[] b = written.getBytes(StandardCharsets.UTF_8);
    assertThat(PolicyJson.decode(b, b.length)).isEqualTo(s);
    assertThatThrownBy(
            () ->
                decode(
                    "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"maxReplicas\":\"8\"}]}"))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining("maxReplicas");
  }

  @Test
  void theCostModelDecodesAndRoundTrips() throws Exception {
    final PolicySnapshot s =
        decode(
            "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"loadAwareRouting\":"
                + "{\"costModel\":{\"prefillTokensPerSecond\":20000,\"requestSeconds\":2.5,"
                + "\"slots\":16}}},{\"namespace\":\"b\",\"loadAwareRouting\":"
                + "{\"rankedReplicas\":2,\"costModel\":{}}},"
                + "{\"namespace\":\"c\",\"loadAwareRouting\":{\"costModel\":null}}]}");
    assertThat(s.policies().get(0).loadAwareRouting())
        .isEqualTo(LoadAwareSpec.costModel(new CostModelSpec(20_000f, 2.5f, 16)));
    assertThat(s.policies().get(1).loadAwareRouting())
        .isEqualTo(new LoadAwareSpec(null, null, 2, null, CostModelSpec.DEFAULTS));
    assertThat(s.policies().get(2).loadAwareRouting()).isEqualTo(LoadAwareSpec.DEFAULTS);
    final String written = PolicyJson.write(s);
    assertThat(written)
        .contains(
            "\"loadAwareRouting\":{\"costModel\":{\"prefillTokensPerSecond\":20000,"
                + "\"requestSeconds\":2.5,\"slots\":16}}")
        .contains("\"loadAwareRouting\":{\"rankedReplicas\":2,\"costModel\":{}}");
    final byte[] b = written.getBytes(StandardCharsets.UTF_8);
    assertThat(PolicyJson.decode(b, b.length)).isEqualTo(s);
    assertThatThrownBy(
            () ->
                decode(
                    "{\"version\":7,\"policies\":[{\"namespace\":\"a\",\"loadAwareRouting\":"
                        + "{\"costModel\":{\"slot\":8}}}]}"))
        .hasMessageContaining("slot");
  }

  @Test
  void loadAwareRoutingRejectsUnknownMembersAndBadTypes() {
    assertThatThrownBy(
            () ->
                decode(
                    "{\"version\":7,\"policies\":[{\"namespace\":\"a\","
                        + "\"loadAwareRouting\":{\"slots\":8}}]}"))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining("slots");
    assertThatThrownBy(
            () ->
                decode(
                    "{\"version\":7,\"policies\":[{\"namespace\":\"a\","
                        + "\"loadAwareRouting\":{\"rankedReplicas\":2.5}}]}"))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining("rankedReplicas");
  }
}
