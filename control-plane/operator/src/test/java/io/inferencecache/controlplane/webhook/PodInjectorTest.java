package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.openapi.ApiException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodInjectorTest {
  private static final SubscriberSidecar SIDECAR =
      new SubscriberSidecar("inference-cache:0.1.0", "server.ns.svc:9090");

  private final List<CacheBackend> backends = new ArrayList<>();
  private final PodInjector injector = new PodInjector(ns -> backends, SIDECAR);

  static CacheBackend backend(final String name, final String spec) {
    return CacheBackendValidatorTest.typed(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'ns','uid':'uid-"
            + name
            + "','generation':3},'spec':{"
            + spec
            + "}}");
  }

  private static final String EVENTS_ONLY_VLLM =
      CacheBackendValidatorTest.EVENTS_ONLY + "," + CacheBackendValidatorTest.domain("d");

  static String pod(final String annotations, final String containers) {
    return "{'metadata':{'name':'p','labels':{'inferencecache.io/cache-domain':'d','app':'x'},"
        + "'annotations':{"
        + annotations
        + "}},'spec':{'containers':["
        + containers
        + "]}}";
  }

  static final String VLLM =
      "{'name':'vllm','image':'vllm','args':['--model','m','--port','8001']}";

  private JsonNode admit(final String podJson) {
    final AdmissionRequest r = Reviews.pod("ns", podJson);
    final AdmissionResponse resp = injector.handle(r);
    assertThat(resp.allowed()).as(resp.toString()).isTrue();
    return Reviews.patched(r, resp);
  }

  static JsonNode container(final JsonNode pod, final String name) {
    for (final JsonNode c : pod.path("spec").path("containers")) {
      if (c.path("name").asText().equals(name)) {
        return c;
      }
    }
    return null;
  }

  static List<String> strings(final JsonNode array) {
    final List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void eventsOnlyPodGetsTheSubscriberSidecarWithTheSpecsArgumentsAndStamps() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final JsonNode out = admit(pod("", VLLM));
    final JsonNode sidecar = container(out, "kvevent-subscriber");
    assertThat(sidecar).isNotNull();
    assertThat(strings(sidecar.path("command")))
        .endsWith("-jar", "/app/inference-cache.jar", "subscribe");
    assertThat(strings(sidecar.path("args")))
        .containsExactly(
            "--engine-endpoint=tcp://127.0.0.1:5557",
            "--server=server.ns.svc:9090",
            "--replica-id=$(POD_NAME)",
            "--tenant-id=$(POD_NAMESPACE)",
            "--model-id=m",
            "--hash-scheme=vllm",
            "--engine-metrics-url=http://127.0.0.1:8001/metrics");
    assertThat(
            sidecar
                .path("env")
                .get(0)
                .path("valueFrom")
                .path("fieldRef")
                .path("fieldPath")
                .asText())
        .isEqualTo("metadata.name");
    assertThat(sidecar.path("resources").path("limits").path("memory").asText()).isEqualTo("128Mi");
    assertThat(sidecar.at("/ports/0/name").asText()).isEqualTo("subscriber-http");
    assertThat(sidecar.at("/ports/0/containerPort").asInt()).isEqualTo(9105);
    assertThat(sidecar.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(sidecar.at("/livenessProbe/httpGet/port").asText()).isEqualTo("subscriber-http");
    assertThat(sidecar.has("readinessProbe")).as("hints are advisory: never unready").isFalse();
    assertThat(sidecar.path("securityContext").path("runAsUser").asInt()).isEqualTo(65532);
    final JsonNode a = out.path("metadata").path("annotations");
    assertThat(a.path("inferencecache.io/injected-by").asText()).isEqualTo("ns/b");
    assertThat(a.path("inferencecache.io/injected-by-uid").asText()).isEqualTo("uid-b");
    assertThat(a.path("inferencecache.io/injected-generation").asText()).isEqualTo("3");
    assertThat(strings(container(out, "vllm").path("args")))
        .containsExactly(
            "--model", "m", "--port", "8001", "--kv-events-config=" + PodInjector.VLLM_KV_EVENTS);
  }

  @Test
  void sglangPodGetsTheSglangSchemeAndDefaultPort() {
    backends.add(backend("b", EVENTS_ONLY_VLLM.replace("'VLLM'", "'SGLang'")));
    final JsonNode out = admit(pod("", "{'name':'sglang','args':['--model-path','m']}"));
    assertThat(strings(container(out, "kvevent-subscriber").path("args")))
        .contains("--hash-scheme=sglang", "--engine-metrics-url=http://127.0.0.1:30000/metrics");
    assertThat(strings(container(out, "sglang").path("args")))
        .contains("--kv-events-config=" + PodInjector.SGLANG_KV_EVENTS);
  }

  @Test
  void engineThatConfiguresItsPublisherIsLeftAlone() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final String own = "{'name':'vllm','args':['--kv-events-config','{}']}";
    final JsonNode out = admit(pod("", own));
    assertThat(strings(container(out, "vllm").path("args")))
        .containsExactly("--kv-events-config", "{}");
  }

  @Test
  void sidecarAppendIsIdempotentAndAPreexistingSidecarIsNotDuplicated() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final JsonNode once = admit(pod("", VLLM));
    final JsonNode twice = admit(once.toString());
    int n = 0;
    for (final JsonNode c : twice.path("spec").path("containers")) {
      n += c.path("name").asText().equals("kvevent-subscriber") ? 1 : 0;
    }
    assertThat(n).isEqualTo(1);
    // EventsOnly with a sidecar it did not add: nothing claimed, no stamp
    assertThat(twice.path("metadata").path("annotations").has("inferencecache.io/injected-by"))
        .isFalse();
  }

  @Test
  void noMatchPassesThroughWithoutAPatch() {
    backends.add(backend("b", EVENTS_ONLY_VLLM.replace("'d'", "'other'")));
    final AdmissionResponse r = injector.handle(Reviews.pod("ns", pod("", VLLM)));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).isNull();
  }

  @Test
  void emptyEngineSelectorIsSkipped() {
    backends.add(backend("b", CacheBackendValidatorTest.EVENTS_ONLY));
    assertThat(injector.handle(Reviews.pod("ns", pod("", VLLM))).patchOperations()).isNull();
  }

  @Test
  void overlappingSelectorsAreTheOnlyDenial() {
    backends.add(backend("b2", EVENTS_ONLY_VLLM));
    backends.add(backend("b1", EVENTS_ONLY_VLLM));
    final AdmissionResponse r = injector.handle(Reviews.pod("ns", pod("", VLLM)));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .isEqualTo(
            "Pod labels match multiple CacheBackends in namespace \"ns\" (b1, b2); engine admission"
                + " requires exactly one CacheBackend owner");
  }

  @Test
  void listErrorAndNilReaderFailOpenStrippingForgedStamps() {
    final String forged =
        pod(
            "'inferencecache.io/injected-by':'ns/evil','inferencecache.io/injected-by-uid':'x',"
                + "'inferencecache.io/inject-skipped':'skip-inject-annotation','keep':'me'",
            VLLM);
    final PodInjector broken =
        new PodInjector(
            ns -> {
              throw new ApiException("down");
            },
            SIDECAR);
    for (final PodInjector p : List.of(broken, new PodInjector(null, SIDECAR))) {
      final AdmissionRequest r = Reviews.pod("ns", forged);
      final JsonNode out = Reviews.patched(r, p.handle(r));
      final JsonNode a = out.path("metadata").path("annotations");
      assertThat(a.has("inferencecache.io/injected-by")).isFalse();
      assertThat(a.has("inferencecache.io/injected-by-uid")).isFalse();
      assertThat(a.has("inferencecache.io/inject-skipped")).isFalse();
      assertThat(a.path("keep").asText()).isEqualTo("me");
      assertThat(container(out, "kvevent-subscriber")).isNull();
    }
  }

  @Test
  void failOpenWithoutForgedStampsSendsNoPatch() {
    final AdmissionResponse r =
        new PodInjector(null, SIDECAR).handle(Reviews.pod("ns", pod("", VLLM)));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).isNull();
  }

  @Test
  void undecodablePodFailsOpen() {
    final AdmissionRequest r =
        Reviews.request("CREATE", "", "Pod", "ns", "{'metadata':'x','spec':[]}", null);
    assertThat(injector.handle(r).allowed()).isTrue();
  }

  @Test
  void skipAnnotationStampsInjectSkippedAndClearsInjectedBy() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final JsonNode out =
        admit(
            pod(
                "'inferencecache.io/skip-inject':'fAlse','inferencecache.io/injected-by':'ns/b'",
                VLLM));
    final JsonNode a = out.path("metadata").path("annotations");
    assertThat(a.path("inferencecache.io/inject-skipped").asText())
        .isEqualTo("skip-inject-annotation");
    assertThat(a.has("inferencecache.io/injected-by")).isFalse();
    assertThat(container(out, "kvevent-subscriber")).isNull();
    final AdmissionRequest again = Reviews.pod("ns", out.toString());
    assertThat(injector.handle(again).patchOperations()).isNull();
  }

  @Test
  void skipAnnotationFalseStillInjects() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    for (final String v : new String[] {"false", "0", "F", "no", "OFF", "Disabled"}) {
      final JsonNode out = admit(pod("'inferencecache.io/skip-inject':'" + v + "'", VLLM));
      assertThat(container(out, "kvevent-subscriber")).as(v).isNotNull();
    }
  }

  @Test
  void skipAnnotationOptsOutExactlyAsParseBool() {
    for (final String v :
        new String[] {"1", "t", "T", "TRUE", "true", "True", "fAlse", "yes", "tRUE"}) {
      assertThat(PodStamps.optsOut(v)).as(v).isTrue();
    }
    for (final String v :
        new String[] {
          "", "0", "f", "F", "FALSE", "false", "False", "no", "Off", "DISABLE", "disabled"
        }) {
      assertThat(PodStamps.optsOut(v)).as(v).isFalse();
    }
    assertThat(PodStamps.optsOut(null)).isFalse();
  }

  @Test
  void eventsOnlyWithoutSubscriberImageInjectsNothingAndStripsForgedStamps() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final PodInjector noImage = new PodInjector(ns -> backends, null);
    final AdmissionRequest r =
        Reviews.pod("ns", pod("'inferencecache.io/injected-by':'ns/b'", VLLM));
    final JsonNode out = Reviews.patched(r, noImage.handle(r));
    assertThat(out.path("metadata").path("annotations").has("inferencecache.io/injected-by"))
        .isFalse();
    assertThat(strings(container(out, "vllm").path("args")))
        .doesNotContain("--kv-events-config=" + PodInjector.VLLM_KV_EVENTS);
  }

  @Test
  void sidecarSkippedWithoutModel() {
    backends.add(
        backend(
            "b",
            "'runtime':'VLLM','integration':{'mode':'EventsOnly'},"
                + CacheBackendValidatorTest.domain("d")));
    assertThat(injector.handle(Reviews.pod("ns", pod("", VLLM))).patchOperations()).isNull();
  }

  @Test
  void podNamespaceIsDefaultedFromTheRequest() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final List<String> asked = new ArrayList<>();
    final PodInjector p =
        new PodInjector(
            ns -> {
              asked.add(ns);
              return backends;
            },
            SIDECAR);
    final AdmissionRequest r = Reviews.pod("team-a", pod("", VLLM));
    final JsonNode out = Reviews.patched(r, p.handle(r));
    assertThat(asked).containsExactly("team-a");
    assertThat(
            out.path("metadata").path("annotations").path("inferencecache.io/injected-by").asText())
        .isEqualTo("team-a/b");
  }

  @Test
  void typedLmCacheWithoutAServerSpecFailsOpen() {
    backends.add(
        backend(
            "b",
            "'runtime':'VLLM','lmCache':{'topology':'PodLocal'},'observation':{'modelID':'m'},"
                + CacheBackendValidatorTest.domain("d")));
    final AdmissionResponse r = injector.handle(Reviews.pod("ns", pod("", VLLM)));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).isNull();
  }

  @Test
  void hiCacheOffloadWiresTheEngineAppliesOverridesAndAddsTheL2Sidecar() {
    backends.add(
        backend(
            "h",
            "'runtime':'SGLang','type':'SGLangHiCache','hiCache':{'sizeGB':8,'writePolicy':'write_through'},"
                + "'observation':{'modelID':'m'},"
                + CacheBackendValidatorTest.domain("d")
                + ",'integration':{'engineOverrides':{'args':['--mem-fraction-static','0.8','--model-path','ignored'],"
                + "'env':[{'name':'EXTRA','value':'1'},{'name':'USER','value':'override'}]}}"));
    final String sglang =
        "{'name':'sglang','args':['--model-path','m','--port','31000'],'env':[{'name':'USER','value':'mine'}]}";
    final JsonNode out = admit(pod("", sglang));
    final JsonNode engine = container(out, "sglang");
    assertThat(strings(engine.path("args")))
        .containsExactly(
            "--model-path",
            "m",
            "--port",
            "31000",
            "--enable-hierarchical-cache",
            "--hicache-size=8",
            "--hicache-write-policy=write_through",
            "--enable-metrics",
            "--kv-events-config=" + PodInjector.SGLANG_KV_EVENTS,
            "--mem-fraction-static",
            "0.8");
    assertThat(engine.path("env").toString())
        .contains("\"USER\",\"value\":\"mine\"")
        .contains("EXTRA");
    assertThat(strings(container(out, "kvevent-subscriber").path("args")))
        .contains(
            "--ignore-block-removed=true", "--engine-metrics-url=http://127.0.0.1:31000/metrics");
  }

  @Test
  void hiCacheConflictWithTheUsersValueFailsOpenWithNoPartialInjection() {
    backends.add(
        backend(
            "h",
            "'runtime':'SGLang','type':'SGLangHiCache','hiCache':{'sizeGB':8},'observation':{'modelID':'m'},"
                + CacheBackendValidatorTest.domain("d")));
    final AdmissionResponse r =
        injector.handle(
            Reviews.pod("ns", pod("", "{'name':'sglang','args':['--hicache-size','4']}")));
    assertThat(r.allowed()).isTrue();
    assertThat(r.patchOperations()).isNull();
  }

  @Test
  void userTemplateIsNeverRewrittenOnlyAppendedTo() {
    backends.add(backend("b", EVENTS_ONLY_VLLM));
    final String odd =
        "{'name':'vllm','args':['--port','8001'],'resources':{'limits':{'cpu':'1000m'}},'x-unknown':{'a':[1,2.50]}}";
    final AdmissionResponse r = injector.handle(Reviews.pod("ns", pod("", odd)));
    final List<String> paths = new ArrayList<>();
    r.patchOperations()
        .forEach(op -> paths.add(op.path("op").asText() + " " + op.path("path").asText()));
    assertThat(paths)
        .containsExactlyInAnyOrder(
            "add /spec/containers/0/args/-",
            "add /spec/containers/-",
            "add /metadata/annotations/inferencecache.io~1injected-by",
            "add /metadata/annotations/inferencecache.io~1injected-by-uid",
            "add /metadata/annotations/inferencecache.io~1injected-generation");
  }
}
