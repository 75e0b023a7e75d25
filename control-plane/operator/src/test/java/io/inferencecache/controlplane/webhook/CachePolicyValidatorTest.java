package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachePolicyValidatorTest {
  private static CachePolicy named(final String name) {
    final CachePolicy p = new CachePolicy();
    p.setMetadata(new V1ObjectMeta().name(name).namespace("ns"));
    return p;
  }

  private static String policy(final String name, final String spec) {
    return "{'metadata':{'name':'" + name + "','namespace':'ns'},'spec':" + spec + "}";
  }

  private final List<CachePolicy> existing = new ArrayList<>();
  private final CachePolicyValidator validator = new CachePolicyValidator(ns -> existing);

  @Test
  void createIsRefusedWhenTheNamespaceHasAPolicy() {
    existing.add(named("zeta"));
    existing.add(named("alpha"));
    final AdmissionResponse r =
        validator.handle(Reviews.create("CachePolicy", "ns", policy("mine", "{}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.code()).isEqualTo(422);
    assertThat(r.message())
        .isEqualTo(
            "CachePolicy.inferencecache.io \"mine\" is invalid: metadata.name: Forbidden: only one"
                + " CachePolicy is allowed per namespace: CachePolicy \"alpha\" already exists in"
                + " namespace \"ns\"");
  }

  @Test
  void createOfTheFirstPolicyIsAllowed() {
    assertThat(validator.handle(Reviews.create("CachePolicy", "ns", policy("p", "{}"))).allowed())
        .isTrue();
  }

  @Test
  void specAndSiblingErrorsAreAggregated() {
    existing.add(named("other"));
    final AdmissionResponse r =
        validator.handle(Reviews.create("CachePolicy", "ns", policy("p", "{'evictionTTL':'0s'}")));
    assertThat(r.message())
        .contains("spec.evictionTTL: Invalid value: \"0s\": evictionTTL must be greater than zero")
        .contains("metadata.name: Forbidden");
  }

  @Test
  void nonPositiveEvictionTtlIsRefused() {
    for (final String ttl : new String[] {"0s", "-1m", "0"}) {
      final AdmissionResponse r =
          validator.handle(
              Reviews.create("CachePolicy", "ns", policy("p", "{'evictionTTL':'" + ttl + "'}")));
      assertThat(r.allowed()).as(ttl).isFalse();
    }
    assertThat(
            validator
                .handle(Reviews.create("CachePolicy", "ns", policy("p", "{'evictionTTL':'1h30m'}")))
                .allowed())
        .isTrue();
  }

  @Test
  void requireChainWithoutChainMatchingIsRefusedWithBothMessages() {
    final AdmissionResponse r =
        validator.handle(
            Reviews.create(
                "CachePolicy",
                "ns",
                policy("p", "{'strategy':{'enableChainMatching':false,'requireChain':true}}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains(
            "spec.strategy.requireChain: Invalid value: \"true\": requireChain requires"
                + " enableChainMatching to be true")
        .contains("strategy.requireChain requires strategy.enableChainMatching");
  }

  @Test
  void updateRefusesOnlyIntroducedErrorsAndSkipsTheSiblingCheck() {
    existing.add(named("other"));
    final String bad = policy("p", "{'evictionTTL':'0s'}");
    assertThat(validator.handle(Reviews.update("CachePolicy", "ns", bad, bad)).allowed()).isTrue();
    final AdmissionResponse introduced =
        validator.handle(Reviews.update("CachePolicy", "ns", bad, policy("p", "{}")));
    assertThat(introduced.allowed()).isFalse();
    assertThat(introduced.message()).contains("spec.evictionTTL").doesNotContain("metadata.name");
  }

  @Test
  void deleteIsAlwaysAllowed() {
    final AdmissionRequest del =
        Reviews.request(
            "DELETE", "inferencecache.io", "CachePolicy", "ns", null, policy("p", "{}"));
    assertThat(new CachePolicyValidator(null).handle(del).allowed()).isTrue();
  }

  @Test
  void nilReaderFailsClosed() {
    final AdmissionResponse r =
        new CachePolicyValidator(null)
            .handle(Reviews.create("CachePolicy", "ns", policy("p", "{}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.code()).isEqualTo(403);
    assertThat(r.message()).contains("no API reader");
  }

  @Test
  void listErrorFailsClosed() {
    final CachePolicyValidator v =
        new CachePolicyValidator(
            ns -> {
              throw new ApiException(503, "unavailable");
            });
    final AdmissionResponse r = v.handle(Reviews.create("CachePolicy", "ns", policy("p", "{}")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message()).contains("cannot list CachePolicies in namespace ns");
  }

  @Test
  void defaulterIsANoOp() {
    final AdmissionResponse r =
        Webhooks.handlers(new io.kubernetes.client.openapi.ApiClient(), null)
            .get(Webhooks.MUTATE_CACHE_POLICY)
            .handle(Reviews.create("CachePolicy", "ns", policy("p", "{}")));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).isNull();
  }
}
