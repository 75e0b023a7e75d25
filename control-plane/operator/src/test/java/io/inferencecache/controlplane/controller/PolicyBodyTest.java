package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.api.PolicyJson;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.kubernetes.client.openapi.JSON;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyBodyTest {
  /** A CachePolicy as the informer decodes it from the API server's JSON. */
  static CachePolicy cr(final String ns, final String name, final String spec) {
    return decode(CachePolicy.class, "CachePolicy", ns, name, spec);
  }

  /** A CacheTenant as the informer decodes it from the API server's JSON. */
  static CacheTenant tenant(final String ns, final String name, final String spec) {
    return decode(CacheTenant.class, "CacheTenant", ns, name, spec);
  }

  private static <T> T decode(
      final Class<T> type,
      final String kind,
      final String ns,
      final String name,
      final String spec) {
    return JSON.deserialize(
        "{\"apiVersion\":\"inferencecache.io/v1alpha1\",\"kind\":\""
            + kind
            + "\",\"metadata\":{\"namespace\":\""
            + ns
            + "\",\"name\":\""
            + name
            + "\",\"generation\":1,\"creationTimestamp\":\"2026-12-01T11:03:18Z\"},\"spec\":"
            + spec
            + "}",
        type);
  }

  @Test
  void defaultedPolicyIsTheExactV7Body() {
    final String body =
        PolicyBody.build(
            List.of(
                cr(
                    "team-a",
                    "default",
                    "{\"eviction\":\"LRU\",\"minimumMatchedTokens\":64,\"routingFloorScore\":\"0.1\","
                        + "\"affinityRouting\":\"Enabled\",\"strategy\":{\"enableChainMatching\":true,"
                        + "\"requireChain\":false,\"enableTenantHot\":true}}")),
            List.of());
    assertThat(body)
        .isEqualTo(
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-a\",\"minimumMatchedTokens\":64,"
                + "\"routingFloorScore\":0.1,\"affinityRouting\":true,\"eviction\":\"lru\","
                + "\"strategy\":{\"enableChainMatching\":true,\"requireChain\":false,"
                + "\"enableTenantHot\":true}}]}");
  }

  @Test
  void loadAwareRoutingIsSentWithItsDecimalPressuresAsNumbersAndReadBackByTheServer()
      throws Exception {
    final String body =
        PolicyBody.build(
            List.of(
                cr(
                    "team-a",
                    "p",
                    "{\"loadAwareRouting\":{\"pressureTokens\":4096,\"pressureBound\":\"1\","
                        + "\"rankedReplicas\":3,\"hintPressure\":\"0.125\"}}")),
            List.of());
    assertThat(body)
        .contains(
            "\"loadAwareRouting\":{\"pressureTokens\":4096,\"pressureBound\":1,"
                + "\"rankedReplicas\":3,\"hintPressure\":0.125}");
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    final PolicySnapshot read = PolicyJson.decode(bytes, bytes.length);
    assertThat(read.policies().get(0).loadAwareRouting())
        .isEqualTo(new io.inferencecache.engine.policy.LoadAwareSpec(4096, 1f, 3, 0.125f));
    assertThat(PolicyBody.build(List.of(cr("team-a", "p", "{}")), List.of()))
        .as("absent: upstream-exact routing")
        .doesNotContain("loadAwareRouting");
  }

  @Test
  void maxReplicasIsSentWhenSetAndReadBackByTheServer() throws Exception {
    final String body =
        PolicyBody.build(List.of(cr("team-a", "p", "{\"maxReplicas\":5}")), List.of());
    assertThat(body).contains("\"maxReplicas\":5");
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(PolicyJson.decode(bytes, bytes.length).policies().get(0).maxReplicas()).isEqualTo(5);
    assertThat(PolicyBody.build(List.of(cr("team-a", "p", "{}")), List.of()))
        .as("absent: every replica, as upstream answers")
        .doesNotContain("maxReplicas");
  }

  @Test
  void theCostModelIsSentWithItsDecimalRequestTimeAsANumberAndReadBackByTheServer()
      throws Exception {
    final String body =
        PolicyBody.build(
            List.of(
                cr(
                    "team-a",
                    "p",
                    "{\"loadAwareRouting\":{\"rankedReplicas\":3,\"costModel\":"
                        + "{\"prefillTokensPerSecond\":12000,\"requestSeconds\":\"2.5\","
                        + "\"slots\":16}}}")),
            List.of());
    assertThat(body)
        .contains(
            "\"loadAwareRouting\":{\"rankedReplicas\":3,\"costModel\":"
                + "{\"prefillTokensPerSecond\":12000,\"requestSeconds\":2.5,\"slots\":16}}");
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    final PolicySnapshot read = PolicyJson.decode(bytes, bytes.length);
    assertThat(read.policies().get(0).loadAwareRouting().costModel())
        .isEqualTo(new io.inferencecache.engine.policy.CostModelSpec(12_000f, 2.5f, 16));
  }

  @Test
  void noObjectsIsAnEmptyPolicyList() {
    assertThat(PolicyBody.build(List.of(), List.of())).isEqualTo("{\"version\":7,\"policies\":[]}");
  }

  @Test
  void durationsAreIntegerNanosecondsAndUnsetPointersAreOmitted() {
    final String body =
        PolicyBody.build(
            List.of(cr("ns", "p", "{\"evictionTTL\":\"1h30m\",\"lookupTimeoutMs\":250}")),
            List.of());
    assertThat(body)
        .isEqualTo(
            "{\"version\":7,\"policies\":[{\"namespace\":\"ns\",\"evictionTTL\":5400000000000,"
                + "\"lookupTimeoutMs\":250,\"eviction\":\"lru\"}]}");
  }

  @Test
  void zeroCountsAreOmittedAndEvictionIsAlwaysSet() {
    final String body =
        PolicyBody.build(
            List.of(
                cr(
                    "ns",
                    "p",
                    "{\"eviction\":\"LFU\",\"minimumPrefixTokens\":0,\"minimumMatchedTokens\":0}")),
            List.of());
    assertThat(body)
        .isEqualTo("{\"version\":7,\"policies\":[{\"namespace\":\"ns\",\"eviction\":\"lfu\"}]}");
  }

  @Test
  void evictionIsLowerCasedAndEmptyIsLru() {
    assertThat(PolicyBody.eviction(CachePolicy.Eviction.LRU)).isEqualTo("lru");
    assertThat(PolicyBody.eviction(CachePolicy.Eviction.LFU)).isEqualTo("lfu");
    assertThat(PolicyBody.eviction(null)).isEqualTo("lru");
    assertThat(PolicyBody.policy(cr("ns", "p", "{\"eviction\":\"\"}")).eviction()).isEqualTo("lru");
    assertThat(PolicyBody.policy(cr("ns", "p", "{\"eviction\":\"LFU\"}")).eviction())
        .isEqualTo("lfu");
  }

  @Test
  void invalidRoutingFloorFallsBackToTheDefaultNeverZero() {
    for (final String bad :
        new String[] {"abc", "-1", "NaN", "Infinity", "1e50", "", " 0.2", "1f"}) {
      assertThat(PolicyBody.routingFloorScore(bad)).as(bad).isEqualTo(0.1f);
    }
    assertThat(PolicyBody.routingFloorScore("0")).isEqualTo(0f);
    assertThat(PolicyBody.routingFloorScore("0.75")).isEqualTo(0.75f);
  }

  @Test
  void absentRoutingFloorIsOmitted() {
    assertThat(PolicyBody.policy(cr("ns", "p", "{}")).routingFloorScore()).isNull();
  }

  @Test
  void affinityRoutingMapsEnabledDisabledAndAbsent() {
    assertThat(PolicyBody.affinity(CachePolicy.AffinityRouting.ENABLED)).isTrue();
    assertThat(PolicyBody.affinity(CachePolicy.AffinityRouting.DISABLED)).isFalse();
    assertThat(PolicyBody.affinity(null)).isNull();
    assertThat(
            PolicyBody.policy(cr("ns", "p", "{\"affinityRouting\":\"Enabled\"}")).affinityRouting())
        .isTrue();
  }

  @Test
  void firstPolicyByNameWinsPerNamespaceAndNamespacesAreSorted() {
    final PolicySnapshot s =
        PolicyBody.snapshot(
            List.of(
                cr("team-b", "z", "{\"lookupTimeoutMs\":1}"),
                cr("team-a", "zeta", "{\"lookupTimeoutMs\":2}"),
                cr("team-a", "alpha", "{\"lookupTimeoutMs\":3}")),
            List.of());
    assertThat(s.policies()).extracting(p -> p.namespace()).containsExactly("team-a", "team-b");
    assertThat(s.policies().get(0).lookupTimeoutMs()).isEqualTo(3);
  }

  @Test
  void tenantsNeedAnIdAndAQuotaAndTheFirstPerIdWins() {
    final String body =
        PolicyBody.build(
            List.of(),
            List.of(
                tenant("b", "t", "{\"tenantID\":\"shared\",\"quota\":{\"maxIndexEntries\":5}}"),
                tenant("a", "t", "{\"tenantID\":\"shared\",\"quota\":{\"maxIndexEntries\":9}}"),
                tenant("a", "u", "{\"tenantID\":\"noquota\"}"),
                tenant(
                    "c",
                    "z",
                    "{\"tenantID\":\"zero\",\"quota\":{\"maxIndexEntries\":0},"
                        + "\"isolationMode\":\"Fairness\"}")));
    assertThat(body)
        .isEqualTo(
            "{\"version\":7,\"policies\":[],\"tenants\":[{\"tenantID\":\"shared\","
                + "\"maxIndexEntries\":9},{\"tenantID\":\"zero\",\"maxIndexEntries\":0,"
                + "\"isolationMode\":\"Fairness\"}]}");
  }

  @Test
  void bodyRoundTripsThroughTheServersStrictDecoder() throws Exception {
    final String body =
        PolicyBody.build(
            List.of(
                cr(
                    "team-a",
                    "p",
                    "{\"eviction\":\"LFU\",\"evictionTTL\":\"5m0s\",\"routingFloorScore\":\"0.35\","
                        + "\"affinityRouting\":\"Disabled\",\"strategy\":{\"requireChain\":true}}")),
            List.of(
                tenant("team-a", "t", "{\"tenantID\":\"t1\",\"quota\":{\"maxIndexEntries\":10}}")));
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    final PolicySnapshot decoded = PolicyJson.decode(bytes, bytes.length);
    assertThat(decoded.version()).isEqualTo(7);
    assertThat(decoded.policies().get(0).evictionTTLNanos()).isEqualTo(300_000_000_000L);
    assertThat(decoded.policies().get(0).routingFloorScore()).isEqualTo(0.35f);
    assertThat(decoded.policies().get(0).affinityRouting()).isFalse();
    assertThat(decoded.policies().get(0).strategy().requireChain()).isTrue();
    assertThat(decoded.policies().get(0).strategy().enableChainMatching()).isNull();
    assertThat(decoded.tenants().get(0).maxIndexEntries()).isEqualTo(10);
    assertThat(PolicyJson.write(decoded)).isEqualTo(body);
  }
}
