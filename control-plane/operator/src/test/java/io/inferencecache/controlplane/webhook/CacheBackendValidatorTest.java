package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheBackendValidatorTest {
  private final List<CacheBackend> existing = new ArrayList<>();
  private final CacheBackendValidator validator = new CacheBackendValidator(ns -> existing);

  static final String EVENTS_ONLY =
      "'runtime':'VLLM','integration':{'mode':'EventsOnly'},'observation':{'modelID':'m'}";

  static String backend(final String name, final String spec) {
    return "{'metadata':{'name':'" + name + "','namespace':'ns'},'spec':{" + spec + "}}";
  }

  static String domain(final String d) {
    return "'engineSelector':{'matchLabels':{'inferencecache.io/cache-domain':'" + d + "'}}";
  }

  static CacheBackend typed(final String json) {
    return JSON.getGson().fromJson(Reviews.tree(json).toString(), CacheBackend.class);
  }

  private AdmissionResponse create(final String spec) {
    return validator.handle(Reviews.create("CacheBackend", "ns", backend("b", spec)));
  }

  @Test
  void eventsOnlyBackendWithADomainIsAdmitted() {
    assertThat(create(EVENTS_ONLY + "," + domain("d")).allowed()).isTrue();
  }

  @Test
  void selectorMustBeTheSoleCacheDomainKey() {
    final AdmissionResponse r =
        create(EVENTS_ONLY + ",'engineSelector':{'matchLabels':{'app':'vllm'}}");
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains(
            "spec.engineSelector.matchLabels: Invalid value: \"{app=vllm}\": must contain exactly one key, inferencecache.io/cache-domain");
    assertThat(
            create(
                    EVENTS_ONLY
                        + ",'engineSelector':{'matchLabels':{'inferencecache.io/cache-domain':'d','app':'x'}}")
                .allowed())
        .isFalse();
    assertThat(create(EVENTS_ONLY + "," + domain("-bad-")).allowed()).isFalse();
  }

  @Test
  void nonCanonicalSelectorIsRefusedOnEveryUpdate() {
    final String bad = backend("b", EVENTS_ONLY + ",'engineSelector':{'matchLabels':{'app':'x'}}");
    final String badToo =
        backend(
            "b",
            EVENTS_ONLY.replace("'m'", "'m2'") + ",'engineSelector':{'matchLabels':{'app':'x'}}");
    final AdmissionResponse r = validator.handle(Reviews.update("CacheBackend", "ns", badToo, bad));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message()).contains("must contain exactly one key");
  }

  @Test
  void overlappingDomainIsRefusedWithTheOwnerNamed() {
    existing.add(typed(backend("zed", EVENTS_ONLY + "," + domain("d"))));
    existing.add(typed(backend("alpha", EVENTS_ONLY + "," + domain("d"))));
    existing.add(typed(backend("other", EVENTS_ONLY + "," + domain("e"))));
    final AdmissionResponse r = create(EVENTS_ONLY + "," + domain("d"));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains(
            "cache domain \"d\" is already owned by CacheBackend \"alpha\" in namespace \"ns\"");
    assertThat(create(EVENTS_ONLY + "," + domain("f")).allowed()).isTrue();
  }

  @Test
  void overlapIsNamespaceScopedThroughTheLister() {
    final CacheBackendValidator v =
        new CacheBackendValidator(
            ns ->
                ns.equals("ns")
                    ? List.of()
                    : List.of(typed(backend("x", EVENTS_ONLY + "," + domain("d")))));
    assertThat(
            v.handle(
                    Reviews.create(
                        "CacheBackend", "ns", backend("b", EVENTS_ONLY + "," + domain("d"))))
                .allowed())
        .isTrue();
  }

  @Test
  void updateThatIntroducesOverlapAndUnrelatedUpdateWhileOverlapExistAreRefused() {
    existing.add(typed(backend("a", EVENTS_ONLY + "," + domain("d"))));
    final String mine = backend("b", EVENTS_ONLY + "," + domain("d"));
    final String before = backend("b", EVENTS_ONLY + "," + domain("e"));
    assertThat(validator.handle(Reviews.update("CacheBackend", "ns", mine, before)).allowed())
        .isFalse();
    final String touched = backend("b", EVENTS_ONLY.replace("'m'", "'m2'") + "," + domain("d"));
    assertThat(validator.handle(Reviews.update("CacheBackend", "ns", touched, mine)).allowed())
        .isFalse();
    existing.add(typed(mine));
    assertThat(
            validator
                .handle(
                    Reviews.update(
                        "CacheBackend", "ns", backend("b", EVENTS_ONLY + "," + domain("e")), mine))
                .allowed())
        .isTrue();
  }

  @Test
  void listErrorFailsTheRequestWithAPlainError() {
    final CacheBackendValidator v =
        new CacheBackendValidator(
            ns -> {
              throw new ApiException(500, "etcd down");
            });
    final AdmissionResponse r =
        v.handle(
            Reviews.create("CacheBackend", "ns", backend("b", EVENTS_ONLY + "," + domain("d"))));
    assertThat(r.code()).isEqualTo(403);
    assertThat(r.message()).startsWith("cannot list CacheBackends in namespace ns");
  }

  @Test
  void updateIsJudgedOnTheNewObjectAndGrandfathersOldErrors() {
    final String oldBad =
        backend(
            "b",
            EVENTS_ONLY
                + ",'remoteStorage':{'provider':'Redis','ownership':'External','endpoint':'r:6379'}");
    final String stillBad = oldBad.replace("'m'", "'m3'");
    assertThat(validator.handle(Reviews.update("CacheBackend", "ns", stillBad, oldBad)).allowed())
        .isTrue();
    final AdmissionResponse introduced =
        validator.handle(Reviews.update("CacheBackend", "ns", oldBad, backend("b", EVENTS_ONLY)));
    assertThat(introduced.allowed()).isFalse();
    assertThat(introduced.message()).contains("spec.remoteStorage: Forbidden");
  }

  @Test
  void deleteIsAlwaysAllowed() {
    assertThat(
            validator
                .handle(
                    Reviews.request(
                        "DELETE",
                        "inferencecache.io",
                        "CacheBackend",
                        "ns",
                        null,
                        backend("b", "")))
                .allowed())
        .isTrue();
  }

  @Test
  void vllmReadOnlyRoleIsRefused() {
    final AdmissionResponse r =
        create(
            "'runtime':'VLLM','type':'LMCache','integration':{'mode':'EventsOnly','role':'ReadOnly'}");
    assertThat(r.message())
        .contains(
            "spec.integration.role: Unsupported value: \"ReadOnly\": LMCache supports ReadWrite only");
  }

  @Test
  void eventsOnlyWithRemoteStorageOrLmCacheIsRefused() {
    final AdmissionResponse r =
        create(
            EVENTS_ONLY
                + ",'lmCache':{'topology':'PodLocal'},'remoteStorage':{'provider':'Redis','ownership':'Managed'}");
    assertThat(r.message())
        .contains("spec.remoteStorage: Forbidden")
        .contains("spec.lmCache: Forbidden");
  }

  @Test
  void invalidKernelCheckAnnotationIsRefused() {
    final String json =
        "{'metadata':{'name':'b','annotations':{'inferencecache.io/lmcache-kernel-check':'always'}},'spec':{"
            + EVENTS_ONLY
            + "}}";
    final AdmissionResponse r = validator.handle(Reviews.create("CacheBackend", "ns", json));
    assertThat(r.message())
        .contains(
            "metadata.annotations[inferencecache.io/lmcache-kernel-check]: Unsupported value: \"always\"");
  }

  @Test
  void offloadLmCacheNeedsATopology() {
    assertThat(create("'runtime':'VLLM'").message()).contains("spec.lmCache: Required value");
    assertThat(create("'runtime':'VLLM','lmCache':{}").message())
        .contains("spec.lmCache.topology: Required value");
  }

  @Test
  void typedPodLocalIsAdmittedAndItsServerRulesApply() {
    final String good =
        "'runtime':'VLLM','type':'LMCache','lmCache':{'topology':'PodLocal','podLocal':{'server':{"
            + "'image':'lmcache/server@sha256:"
            + "a".repeat(64)
            + "','port':6555,'l1Capacity':'4Gi','maxWorkers':2,"
            + "'resources':{'requests':{'cpu':'1','memory':'5Gi'},'limits':{'memory':'6Gi'}}}}},"
            + domain("d");
    assertThat(create(good).allowed()).as(create(good).toString()).isTrue();
    final AdmissionResponse bad =
        create(
            good.replace("'port':6555", "'port':5557")
                .replace("'memory':'5Gi'", "'memory':'4Gi'")
                .replace("@sha256:" + "a".repeat(64), ":latest"));
    assertThat(bad.message())
        .contains("spec.lmCache.podLocal.server.port: Invalid value: \"5557\"")
        .contains("spec.lmCache.podLocal.server.resources.requests.memory")
        .contains("spec.lmCache.podLocal.server.image: Invalid value: \"lmcache/server:latest\"");
  }

  @Test
  void celRuleOfTheCrdIsEnforced() {
    final String zero =
        "'runtime':'VLLM','type':'LMCache','lmCache':{'topology':'PodLocal','podLocal':{'server':{"
            + "'image':'lmcache/server@sha256:"
            + "a".repeat(64)
            + "','port':6555,'l1Capacity':'0','maxWorkers':2,"
            + "'resources':{'requests':{'cpu':'1','memory':'5Gi'},'limits':{'memory':'6Gi'}}}}}";
    assertThat(create(zero).message())
        .contains(
            "spec.lmCache.podLocal.server.l1Capacity: Invalid value: l1Capacity must be greater than zero");
  }

  @Test
  void sglangHiCacheContract() {
    final String ok =
        "'runtime':'SGLang','type':'SGLangHiCache','hiCache':{'sizeGB':8}," + domain("d");
    assertThat(create(ok).allowed()).isTrue();
    assertThat(create(ok.replace("'SGLang'", "'VLLM'")).message()).contains("spec.runtime");
    assertThat(create(ok.replace("'sizeGB':8", "'sizeGB':8,'ratio':'2'")).message())
        .contains("set exactly one of sizeGB and ratio");
    assertThat(create(ok.replace("'sizeGB':8", "'ratio':'NaN'")).message())
        .contains("spec.hiCache.ratio: Invalid value: \"NaN\"");
    assertThat(create(ok + ",'integration':{'failOpen':false}").message())
        .contains("spec.integration.failOpen: Forbidden");
  }

  @Test
  void reservedEngineOverridesAreForbidden() {
    final AdmissionResponse r =
        create(
            "'runtime':'SGLang','type':'SGLangHiCache','hiCache':{'sizeGB':8},"
                + domain("d")
                + ",'integration':{'engineOverrides':{'args':['--hicache-size=9'],"
                + "'env':[{'name':'9x','value':'a'},{'name':'OK','value':'a','valueFrom':{'fieldRef':{'fieldPath':'x'}}}]}}");
    assertThat(r.message())
        .contains(
            "spec.integration.engineOverrides.args: Forbidden: flag --hicache-size is set by the sglang engine injection")
        .contains("spec.integration.engineOverrides.env[0].name: Invalid value: \"9x\"")
        .contains("spec.integration.engineOverrides.env[1].valueFrom");
  }

  @Test
  void externalEndpointShapeAndCrossNamespaceOptIn() {
    final String base =
        "'runtime':'VLLM','type':'LMCache','lmCache':{'topology':'PodLocal','podLocal':{'server':{"
            + "'image':'i@sha256:"
            + "b".repeat(64)
            + "','port':6555,'l1Capacity':'1Gi','maxWorkers':1,"
            + "'resources':{'requests':{'cpu':'1','memory':'2Gi'},'limits':{'memory':'2Gi'}}}}},"
            + "'remoteStorage':{'provider':'Redis','ownership':'External','endpoint':'ENDPOINT'}";
    assertThat(create(base.replace("ENDPOINT", "redis.ns.svc:6379")).allowed()).isTrue();
    assertThat(create(base.replace("ENDPOINT", "redis://r:6379")).message())
        .contains("without a scheme");
    assertThat(create(base.replace("ENDPOINT", "r:70000")).message())
        .contains("port must be 1..65535");
    assertThat(create(base.replace("ENDPOINT", "redis.other.svc.cluster.local:6379")).message())
        .contains("allowCrossNamespace");
    assertThat(
            create(base.replace("ENDPOINT", "redis.other.svc:6379") + ",'allowCrossNamespace':true")
                .allowed())
        .isTrue();
  }

  @Test
  void defaulterMaterializesIntegrationAndObservation() {
    final AdmissionRequest req =
        Reviews.create("CacheBackend", "ns", backend("b", "'runtime':'VLLM'"));
    final JsonNode out = Reviews.patched(req, new CacheBackendDefaulter().handle(req));
    assertThat(out.path("spec").path("integration").isObject()).isTrue();
    assertThat(out.path("spec").path("integration").size()).isZero();
    assertThat(out.path("spec").path("observation").path("firstEventTimeout").asText())
        .isEqualTo("5m0s");
  }

  @Test
  void defaulterPreservesObservationTimeout() {
    final AdmissionRequest req =
        Reviews.create(
            "CacheBackend",
            "ns",
            backend(
                "b",
                "'runtime':'VLLM','integration':{'mode':'EventsOnly'},'observation':{'modelID':'m','firstEventTimeout':'90s'}"));
    final AdmissionResponse r = new CacheBackendDefaulter().handle(req);
    assertThat(r.patchOperations()).isNull();
    final AdmissionRequest partial =
        Reviews.create("CacheBackend", "ns", backend("b", "'observation':{'modelID':'m'}"));
    final JsonNode out = Reviews.patched(partial, new CacheBackendDefaulter().handle(partial));
    assertThat(out.path("spec").path("observation").path("modelID").asText()).isEqualTo("m");
    assertThat(out.path("spec").path("observation").path("firstEventTimeout").asText())
        .isEqualTo("5m0s");
  }
}
