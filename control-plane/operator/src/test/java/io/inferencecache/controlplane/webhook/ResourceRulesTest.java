package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The resource shapes of §3.3 over a Managed Redis's {@code resources}: each rule on its own, with
 * the API server's wording for Pods, and through the whole validator.
 */
class ResourceRulesTest {
  private static Map<String, Quantity> q(final String... pairs) {
    final Map<String, Quantity> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], Quantity.fromString(pairs[i + 1]));
    }
    return m;
  }

  private static List<String> errors(
      final Map<String, Quantity> requests, final Map<String, Quantity> limits) {
    final List<FieldError> e = new ArrayList<>();
    ResourceRules.resources("r", new V1ResourceRequirements().requests(requests).limits(limits), e);
    return e.stream().map(FieldError::toString).toList();
  }

  @Test
  void cpuAndMemoryMayOvercommitButNotExceedTheirLimit() {
    assertThat(errors(q("cpu", "1", "memory", "1Gi"), q("cpu", "2", "memory", "2Gi"))).isEmpty();
    assertThat(errors(q("memory", "1Gi"), Map.of())).isEmpty();
    assertThat(errors(q("memory", "3Gi"), q("memory", "2Gi")))
        .containsExactly(
            "r.requests[memory]: Invalid value: \"3Gi\": must be less than or equal to memory limit"
                + " of 2Gi");
  }

  @Test
  void extendedResourcesNeedARequestEqualToASetWholeLimit() {
    assertThat(errors(q("cpu", "1", "example.com/fpga", "2"), q("example.com/fpga", "2")))
        .isEmpty();
    assertThat(errors(q("example.com/fpga", "1"), q("example.com/fpga", "2")))
        .containsExactly(
            "r.requests[example.com/fpga]: Invalid value: \"1\": must be equal to example.com/fpga"
                + " limit of 2");
    assertThat(errors(q("example.com/fpga", "1"), Map.of()))
        .containsExactly(
            "r.limits: Required value: Limit must be set for non overcommitable resources");
    assertThat(errors(Map.of(), q("example.com/fpga", "500m")))
        .containsExactly("r.limits[example.com/fpga]: Invalid value: \"500m\": must be an integer");
  }

  @Test
  void hugepagesAreWholePagesWithCpuOrMemoryAndRequestEqualToLimit() {
    assertThat(errors(q("memory", "1Gi", "hugepages-2Mi", "4Mi"), q("hugepages-2Mi", "4Mi")))
        .isEmpty();
    assertThat(errors(q("memory", "1Gi", "hugepages-2Mi", "2Mi"), q("hugepages-2Mi", "4Mi")))
        .containsExactly(
            "r.requests[hugepages-2Mi]: Invalid value: \"2Mi\": must be equal to hugepages-2Mi"
                + " limit of 4Mi");
    assertThat(errors(q("memory", "1Gi"), q("hugepages-2Mi", "3Mi")))
        .containsExactly(
            "r.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple"
                + " of hugepages-2Mi");
    assertThat(errors(Map.of(), q("hugepages-1Gi", "2Gi")))
        .containsExactly("r: Forbidden: HugePages require cpu or memory");
    assertThat(errors(q("memory", "1Gi", "hugepages-2Mi", "2Mi"), Map.of()))
        .containsExactly(
            "r.limits: Required value: Limit must be set for non overcommitable resources");
  }

  @Test
  void resourceNamesMustBeStandardForContainersOrQualified() {
    assertThat(errors(q("gpu", "1"), Map.of()))
        .containsExactly(
            "r.requests[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully"
                + " qualified",
            "r.requests[gpu]: Invalid value: \"gpu\": must be a standard resource for containers");
    assertThat(errors(Map.of(), q("pods", "1")))
        .containsExactly(
            "r.limits[pods]: Invalid value: \"pods\": must be a standard resource for containers");
    assertThat(errors(Map.of(), q("Example.com/fpga", "1")))
        .containsExactly(
            "r.limits[Example.com/fpga]: Invalid value: \"Example.com/fpga\": prefix part a"
                + " lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                + " characters, '-' or '.', and must start and end with an alphanumeric character"
                + " (e.g. 'example.com', regex used for validation is"
                + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assertThat(errors(Map.of(), q("requests.example.com/fpga", "1")))
        .containsExactly(
            "r.limits[requests.example.com/fpga]: Invalid value: \"requests.example.com/fpga\":"
                + " doesn't follow extended resource name standard");
    assertThat(ResourceRules.nameProblems("a/b/c")).hasSize(1);
    assertThat(ResourceRules.nameProblems("example.com/-x").get(0)).startsWith("name part must");
  }

  @Test
  void negativeQuantitiesAndClaimsAreRefused() {
    assertThat(errors(q("memory", "-1Gi"), Map.of()))
        .containsExactly(
            "r.requests[memory]: Invalid value: \"-1Gi\": must be greater than or equal to 0");
    final List<FieldError> e = new ArrayList<>();
    ResourceRules.resources(
        "r",
        new V1ResourceRequirements()
            .claims(
                List.of(new io.kubernetes.client.openapi.models.CoreV1ResourceClaim().name("x"))),
        e);
    assertThat(e.stream().map(FieldError::toString))
        .containsExactly("r.claims: Forbidden: resource claims are not supported");
  }

  private final CacheBackendValidator validator = new CacheBackendValidator(ns -> List.of());

  private AdmissionResponse create(final String spec) {
    return validator.handle(
        Reviews.create("CacheBackend", "ns", CacheBackendValidatorTest.backend("b", spec)));
  }

  @Test
  void theValidatorRefusesAManagedRedisWithAnUnequalExtendedResource() {
    final AdmissionResponse r =
        create(
            "'runtime':'VLLM','type':'SGLangHiCache','remoteStorage':{'provider':'Redis',"
                + "'ownership':'Managed','redis':{'resources':{'requests':{'example.com/nic':'1'},"
                + "'limits':{'example.com/nic':'2'}}}}");
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains(
            "spec.remoteStorage.redis.resources.requests[example.com/nic]: Invalid value: \"1\":"
                + " must be equal to example.com/nic limit of 2");
  }

  @Test
  void anUnknownProviderIsNamedAsSuchNotAsMissing() {
    final AdmissionResponse r =
        create(
            "'runtime':'VLLM','type':'LMCache','lmCache':{'topology':'PodLocal'},"
                + "'remoteStorage':{'provider':'Memcached','ownership':'External',"
                + "'endpoint':'cache:11211'}");
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains(
            "spec.remoteStorage.provider: Invalid value: \"Memcached\": unknown remote storage"
                + " provider; supported: Redis")
        .doesNotContain("provider is required");
    final AdmissionResponse missing =
        create("'runtime':'VLLM','remoteStorage':{'ownership':'External','endpoint':'cache:6379'}");
    assertThat(missing.message())
        .contains("spec.remoteStorage.provider: Required value: provider is required");
  }
}
