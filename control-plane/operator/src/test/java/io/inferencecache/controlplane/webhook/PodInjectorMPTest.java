package io.inferencecache.controlplane.webhook;

import static io.inferencecache.controlplane.webhook.PodInjectorTest.backend;
import static io.inferencecache.controlplane.webhook.PodInjectorTest.container;
import static io.inferencecache.controlplane.webhook.PodInjectorTest.pod;
import static io.inferencecache.controlplane.webhook.PodInjectorTest.strings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pod webhook's LMCache multiprocess wiring of typed LMCache PodLocal backends. */
class PodInjectorMPTest {
  private static final SubscriberSidecar SIDECAR =
      new SubscriberSidecar("inference-cache:0.1.0", "server.ns.svc:9090");
  private static final String IMAGE = "lmcache/server@sha256:" + "c".repeat(64);

  private final List<CacheBackend> backends = new ArrayList<>();
  private final PodInjector injector = new PodInjector(ns -> backends, SIDECAR);

  /** A typed LMCache PodLocal backend of domain d (port 6555, L1 1536Mi, 2 workers) + extra. */
  private static String podLocal(final String runtime, final String extra) {
    return "'runtime':'"
        + runtime
        + "','type':'LMCache','observation':{'modelID':'m'},"
        + CacheBackendValidatorTest.domain("d")
        + ",'lmCache':{'topology':'PodLocal','podLocal':{'server':{'image':' "
        + IMAGE
        + " ','port':6555,'l1Capacity':'1536Mi','maxWorkers':2,"
        + "'resources':{'requests':{'cpu':'2','memory':'3Gi'},'limits':{'memory':'3Gi'}}}}}"
        + extra;
  }

  private JsonNode admit(final String podJson) {
    final AdmissionRequest r = Reviews.pod("ns", podJson);
    final AdmissionResponse resp = injector.handle(r);
    assertThat(resp.allowed()).as(resp.toString()).isTrue();
    return Reviews.patched(r, resp);
  }

  private static JsonNode init(final JsonNode pod, final String name) {
    for (final JsonNode c : pod.path("spec").path("initContainers")) {
      if (c.path("name").asText().equals(name)) {
        return c;
      }
    }
    return null;
  }

  private static JsonNode env(final JsonNode container, final String name) {
    for (final JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals(name)) {
        return e;
      }
    }
    return null;
  }

  @Test
  void vllmPodLocalGetsTheConnectorTheServerSidecarSharedShmAndStamps() {
    backends.add(backend("b", podLocal("VLLM", "")));
    final JsonNode out = admit(pod("", PodInjectorTest.VLLM));
    final JsonNode engine = container(out, "vllm");
    assertThat(strings(engine.path("args")))
        .containsExactly(
            "--model",
            "m",
            "--port",
            "8001",
            "--kv-transfer-config={\"kv_connector\":\"LMCacheMPConnector\","
                + "\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\","
                + "\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}",
            "--disable-hybrid-kv-cache-manager",
            "--kv-events-config=" + PodInjector.VLLM_KV_EVENTS);
    assertThat(env(engine, "PYTHONHASHSEED").path("value").asText()).isEqualTo("0");
    assertThat(env(engine, "INFERENCECACHE_FAIL_OPEN").path("value").asText()).isEqualTo("true");
    assertThat(engine.path("volumeMounts").toString())
        .isEqualTo("[{\"name\":\"lmcache-mp-shm\",\"mountPath\":\"/dev/shm\"}]");
    assertThat(out.path("spec").path("volumes").toString())
        .isEqualTo(
            "[{\"name\":\"lmcache-mp-shm\",\"emptyDir\":{\"medium\":\"Memory\",\"sizeLimit\":\"2560Mi\"}}]");

    final JsonNode server = init(out, "lmcache-mp-server");
    assertThat(server).isNotNull();
    assertThat(server.path("image").asText()).isEqualTo(IMAGE);
    assertThat(server.path("restartPolicy").asText()).isEqualTo("Always");
    assertThat(strings(server.path("command"))).containsExactly("lmcache");
    assertThat(strings(server.path("args")))
        .containsExactly(
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "6555",
            "--http-host",
            "0.0.0.0",
            "--http-port",
            "8080",
            "--chunk-size",
            "256",
            "--l1-size-gb",
            "1.5",
            "--eviction-policy",
            "LRU",
            "--max-workers",
            "2");
    assertThat(server.path("env").toString())
        .isEqualTo("[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"all\"}]");
    assertThat(server.path("ports").toString())
        .contains("\"name\":\"lmcache-mp\",\"containerPort\":6555")
        .contains("\"name\":\"lmcache-http\",\"containerPort\":8080");
    assertThat(server.path("readinessProbe").path("httpGet").toString())
        .isEqualTo("{\"path\":\"/healthcheck\",\"port\":\"lmcache-http\"}");
    assertThat(server.path("resources").path("requests").path("cpu").asText()).isEqualTo("2");
    assertThat(server.path("resources").path("limits").path("memory").asText()).isEqualTo("3Gi");
    assertThat(server.path("volumeMounts").toString())
        .isEqualTo("[{\"name\":\"lmcache-mp-shm\",\"mountPath\":\"/dev/shm\"}]");

    assertThat(out.path("metadata").path("labels").path("inferencecache.io/lmcache-mp-metrics"))
        .hasToString("\"true\"");
    final JsonNode a = out.path("metadata").path("annotations");
    assertThat(a.path("inferencecache.io/injected-by").asText()).isEqualTo("ns/b");
    assertThat(a.path("inferencecache.io/injected-by-uid").asText()).isEqualTo("uid-b");
    assertThat(a.path("inferencecache.io/injected-generation").asText()).isEqualTo("3");
    assertThat(strings(container(out, "kvevent-subscriber").path("args")))
        .contains("--ignore-block-removed=true");
  }

  @Test
  void externalRedisBecomesTheL2AdapterWithCredentialsFromTheSecretAndFailClosedEnv() {
    backends.add(
        backend(
            "b",
            podLocal(
                "VLLM",
                ",'integration':{'failOpen':false},'remoteStorage':{'provider':'Redis',"
                    + "'ownership':'External','endpoint':' redis.ns.svc:6380 ',"
                    + "'redis':{'authentication':{'username':{'name':'redis','key':'user'},"
                    + "'password':{'name':'redis','key':'pass'}}}}")));
    final JsonNode out = admit(pod("", PodInjectorTest.VLLM));
    final JsonNode server = init(out, "lmcache-mp-server");
    assertThat(strings(server.path("args")))
        .endsWith("--l2-adapter", "{\"type\":\"resp\",\"host\":\"redis.ns.svc\",\"port\":6380}");
    assertThat(env(server, "LMCACHE_RESP_PASSWORD").path("valueFrom").toString())
        .isEqualTo("{\"secretKeyRef\":{\"key\":\"pass\",\"name\":\"redis\"}}");
    assertThat(env(server, "LMCACHE_RESP_USERNAME").path("valueFrom").path("secretKeyRef"))
        .hasToString("{\"key\":\"user\",\"name\":\"redis\"}");
    assertThat(env(container(out, "vllm"), "INFERENCECACHE_FAIL_OPEN").path("value").asText())
        .isEqualTo("false");
  }

  @Test
  void managedRedisIsWiredOnlyOnceItsEndpointIsPublished() {
    final CacheBackend b =
        backend(
            "b", podLocal("VLLM", ",'remoteStorage':{'provider':'Redis','ownership':'Managed'}"));
    backends.add(b);
    final AdmissionResponse pending =
        injector.handle(Reviews.pod("ns", pod("", PodInjectorTest.VLLM)));
    assertThat(pending.allowed()).isTrue();
    assertThat(pending.patchOperations()).as("admitted unchanged").isNull();

    b.setStatus(new CacheBackend.Status());
    b.getStatus().remoteStorage = new CacheBackend.RemoteStorageStatus();
    b.getStatus().remoteStorage.endpoint = "b.ns.svc.cluster.local:6379";
    final JsonNode out = admit(pod("", PodInjectorTest.VLLM));
    assertThat(strings(init(out, "lmcache-mp-server").path("args")))
        .endsWith(
            "--l2-adapter",
            "{\"type\":\"resp\",\"host\":\"b.ns.svc.cluster.local\",\"port\":6379}");
  }

  @Test
  void sglangPodLocalReadsItsClientConfigFromTheProjectedAnnotation() {
    backends.add(
        backend(
            "s",
            podLocal("SGLang", "")
                .replace("'topology':'PodLocal'", "'topology':'PodLocal','chunkSizeTokens':512")));
    final JsonNode out =
        admit(
            pod(
                "",
                "{'name':'sglang','args':['--model-path','m'],'volumeMounts':[{'name':'models','mountPath':'/models'}]}"));
    final JsonNode engine = container(out, "sglang");
    assertThat(strings(engine.path("args")))
        .containsExactly(
            "--model-path",
            "m",
            "--enable-lmcache",
            "--lmcache-config-file=/var/run/inference-cache/lmcache/client.yaml",
            "--enable-metrics",
            "--kv-events-config=" + PodInjector.SGLANG_KV_EVENTS);
    assertThat(env(engine, "LMCACHE_USE_EXPERIMENTAL").path("value").asText()).isEqualTo("True");
    assertThat(
            out.path("metadata")
                .path("annotations")
                .path("inferencecache.io/lmcache-mp-client-config")
                .asText())
        .isEqualTo("chunk_size: 512\nmp_host: \"127.0.0.1\"\nmp_port: 6555\n");
    assertThat(out.path("spec").path("volumes").get(1).toString())
        .isEqualTo(
            "{\"name\":\"lmcache-mp-config\",\"downwardAPI\":{\"items\":[{\"path\":\"client.yaml\","
                + "\"fieldRef\":{\"fieldPath\":\"metadata.annotations['inferencecache.io/lmcache-mp-client-config']\"}}]}}");
    assertThat(engine.path("volumeMounts").toString())
        .isEqualTo(
            "[{\"name\":\"models\",\"mountPath\":\"/models\"},"
                + "{\"name\":\"lmcache-mp-shm\",\"mountPath\":\"/dev/shm\"},"
                + "{\"name\":\"lmcache-mp-config\",\"mountPath\":\"/var/run/inference-cache/lmcache\",\"readOnly\":true}]");
    assertThat(strings(init(out, "lmcache-mp-server").path("args"))).contains("512");
  }

  @Test
  void anEnginesOwnMemoryShmIsSharedWithTheServer() {
    backends.add(backend("b", podLocal("VLLM", "")));
    final String engine =
        "{'name':'vllm','volumeMounts':[{'name':'dshm','mountPath':'/dev/shm'}]}],"
            + "'volumes':[{'name':'dshm','emptyDir':{'medium':'Memory'}}";
    final JsonNode out = admit(pod("", engine));
    assertThat(out.path("spec").path("volumes").size()).isEqualTo(1);
    assertThat(init(out, "lmcache-mp-server").path("volumeMounts").toString())
        .isEqualTo("[{\"name\":\"dshm\",\"mountPath\":\"/dev/shm\"}]");
  }

  @Test
  void engineOverridesApplyToTheConnectorWiring() {
    backends.add(
        backend(
            "b",
            podLocal(
                "VLLM",
                ",'integration':{'engineOverrides':{'suppressArgs':['--kv-events-config'],"
                    + "'args':['--max-model-len','4096']}}")));
    final JsonNode out = admit(pod("", "{'name':'vllm'}"));
    assertThat(strings(container(out, "vllm").path("args")))
        .doesNotContain("--kv-events-config=" + PodInjector.VLLM_KV_EVENTS)
        .endsWith("--disable-hybrid-kv-cache-manager", "--max-model-len", "4096");
  }

  /** Each conflict admits the pod unchanged: no wiring, no stamps. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "another connector|{'name':'vllm','args':['--kv-transfer-config','{}']}|",
        "another hash seed|{'name':'vllm','env':[{'name':'PYTHONHASHSEED','value':'7'}]}|",
        "fail-open from a source|{'name':'vllm','env':[{'name':'INFERENCECACHE_FAIL_OPEN','valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}}]}|",
        "a foreign /dev/shm|{'name':'vllm','volumeMounts':[{'name':'h','mountPath':'/dev/shm'}]}],'volumes':[{'name':'h','hostPath':{'path':'/dev/shm'}}|",
        "a taken server name|{'name':'vllm'}],'initContainers':[{'name':'lmcache-mp-server','image':'x'}|",
        "a taken volume name|{'name':'vllm'}],'volumes':[{'name':'lmcache-mp-shm','emptyDir':{}}|",
        "two containers and none named vllm|{'name':'a'},{'name':'b'}|",
        "NodeLocal|{'name':'vllm'}|NodeLocal",
      })
  void conflictsAdmitThePodUnchanged(
      final String why, final String containers, final String topology) {
    String spec = podLocal("VLLM", "");
    if (topology != null) {
      spec = spec.replace("'topology':'PodLocal'", "'topology':'" + topology + "'");
    }
    backends.add(backend("b", spec));
    final AdmissionResponse r = injector.handle(Reviews.pod("ns", pod("", containers)));
    assertThat(r.allowed()).as(why).isTrue();
    assertThat(r.patchOperations()).as(why).isNull();
  }

  @Test
  void anApiServerWithoutNativeSidecarsAdmitsThePodUnchanged() {
    backends.add(backend("b", podLocal("VLLM", "")));
    final PodInjector old =
        new PodInjector(
            ns -> backends,
            SIDECAR,
            new NativeSidecars(
                () -> {
                  final io.kubernetes.client.openapi.models.VersionInfo v =
                      new io.kubernetes.client.openapi.models.VersionInfo();
                  v.setMajor("1");
                  v.setMinor("28");
                  v.setGitVersion("v1.28.4");
                  return v;
                }));
    final AdmissionResponse r = old.handle(Reviews.pod("ns", pod("", PodInjectorTest.VLLM)));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).as("admitted unchanged").isNull();
    assertThat(injector.handle(Reviews.pod("ns", pod("", PodInjectorTest.VLLM))).patchOperations())
        .as("the same pod on a 1.29 API server")
        .isNotNull();
  }
}
