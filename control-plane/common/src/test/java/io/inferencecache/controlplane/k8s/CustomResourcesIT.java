package io.inferencecache.controlplane.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.inferencecache.controlplane.k8s.model.ConditionedStatus;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.samples.Samples;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.kubelocal.ProcessResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shipped CRDs, samples and Java model on a real API server (kube-local, 1.20). */
@KubeLocalTest
class CustomResourcesIT {
  private static final String V = CustomResource.API_VERSION;

  @BeforeAll
  static void installCrds(KubeLocal kube) {
    assertThat(kube.applyCrdsFor120(Samples.CRDS)).hasSize(6);
  }

  @Test
  void allSixCrdsAreEstablishedAndEveryShortNameLists(KubeLocal kube) {
    ProcessResult crds = kube.kubectl("get", "crd", "-o", "name").orThrow();
    assertThat(crds.stdout().lines().filter(l -> l.contains("inferencecache.io")).count())
        .isEqualTo(6);
    ProcessResult all = kube.kubectl("get", "cpol,ct,cb,ci,pt,pdt", "-A");
    assertThat(all.exitCode()).as(all.stderr()).isZero();
  }

  @Test
  void emptySpecsReadBackWithTheSchemaDefaults(KubeLocal kube) {
    String ns = kube.newNamespace();
    apply(kube, ns, "{kind: CachePolicy, metadata: {name: empty}, spec: {}}");
    apply(kube, ns, "{kind: CachePolicy, metadata: {name: strategy}, spec: {strategy: {}}}");
    apply(kube, ns, "{kind: CacheTenant, metadata: {name: t}, spec: {tenantID: t}}");
    apply(
        kube,
        ns,
        "{kind: CacheBackend, metadata: {name: b}, spec: {runtime: VLLM, integration: {},"
            + " lmCache: {topology: NodeLocal, nodeLocal: {server: {image: i, port: 1, httpPort: 2,"
            + " l1Capacity: 1Gi, maxGPUWorkers: 1, maxCPUWorkers: 1, resources: {}}}}}}");

    assertThat(spec(kube, ns, "cpol", "empty"))
        .isEqualTo(
            json(
                "{eviction: LRU, minimumMatchedTokens: 64, routingFloorScore: '0.1',"
                    + " affinityRouting: Enabled}"));
    assertThat(spec(kube, ns, "cpol", "strategy").get("strategy"))
        .isEqualTo(json("{enableChainMatching: true, requireChain: false, enableTenantHot: true}"));
    assertThat(spec(kube, ns, "ct", "t").get("isolationMode").getAsString()).isEqualTo("Fairness");
    JsonObject backend = spec(kube, ns, "cb", "b");
    assertThat(backend.get("type").getAsString()).isEqualTo("LMCache");
    assertThat(backend.get("allowCrossNamespace").getAsBoolean()).isFalse();
    assertThat(backend.get("integration"))
        .isEqualTo(json("{mode: Offload, role: ReadWrite, failOpen: true}"));
    assertThat(
            backend
                .getAsJsonObject("lmCache")
                .getAsJsonObject("nodeLocal")
                .get("idleRetentionSeconds")
                .getAsInt())
        .isEqualTo(300);
  }

  @Test
  void aBadEnumOrPatternIsRefusedWithTheServersOwn422NamingTheField(KubeLocal kube) {
    String ns = kube.newNamespace();
    CustomObjectsApi api = new CustomObjectsApi(kube.adminClient());
    assertThat(refusal(api, ns, Map.of("eviction", "BOGUS")))
        .contains("spec.eviction", "Unsupported value: \\\"BOGUS\\\"");
    assertThat(refusal(api, ns, Map.of("routingFloorScore", "abc")))
        .contains("spec.routingFloorScore", "should match");
    assertThat(refusal(api, ns, Map.of("minimumMatchedTokens", -1)))
        .contains("spec.minimumMatchedTokens", "should be greater than or equal to 0");
  }

  @Test
  void everySampleAppliesAndEveryKindShowsItsPrinterColumns(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    for (Path file : Samples.files()) {
      boolean ownNamespaces = Files.readString(file).contains("namespace:");
      ProcessResult r =
          ownNamespaces
              ? kube.kubectl("apply", "--validate=false", "-f", file.toString())
              : kube.kubectl("apply", "--validate=false", "-n", ns, "-f", file.toString());
      assertThat(r.exitCode()).as(file + ": " + r.stderr()).isZero();
    }
    assertThat(header(kube, "cb", ns))
        .containsExactly(
            "NAME", "TYPE", "READY", "MATCHED", "REMOTE", "PREFIXES", "LASTEVENT", "AGE");
    assertThat(header(kube, "cpol", ns)).containsExactly("NAME", "EVICTION", "AGE");
    assertThat(header(kube, "ct", "team-a"))
        .containsExactly("NAME", "TENANT", "ENTRIES", "QUOTA", "ISOLATION", "AGE");
    assertThat(header(kube, "ci", null)).containsExactly("NAME", "PREFIXES", "CHANGED", "AGE");
    assertThat(header(kube, "pt", ns)).containsExactly("NAME", "REVISION", "AGE");
    assertThat(header(kube, "pdt", ns)).containsExactly("NAME", "PREFILL", "DECODE", "AGE");

    // Server-side printing leaves a column whose field is unset (Entries: not yet observed) empty,
    // so the row is cut at the header's column positions rather than split on blanks.
    String tenants = kube.kubectl("get", "ct", "-n", "team-a").orThrow().stdout();
    assertThat(cells(tenants))
        .startsWith(
            Map.entry("NAME", "team-a"),
            Map.entry("TENANT", "team-a"),
            Map.entry("ENTRIES", ""),
            Map.entry("QUOTA", "500000"),
            Map.entry("ISOLATION", "Fairness"));
    String pools = kube.kubectl("get", "pdt", "-n", ns).orThrow().stdout();
    assertThat(pools.lines().skip(1).findFirst().orElseThrow().split("\\s+"))
        .startsWith("llama-disaggregated", "prefill", "decode");
  }

  @Test
  void everyKindRoundTripsThroughTheGenericApiIncludingItsStatus(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
    int i = 0;
    for (Samples.Doc doc : Samples.documents()) {
      CrdKind<?, ?> kind = doc.kind();
      roundTrip(kube, kind, doc, ns, now, i++);
    }
  }

  private static <O extends CustomResource<?, ?>> void roundTrip(
      KubeLocal kube, CrdKind<O, ?> kind, Samples.Doc doc, String ns, OffsetDateTime now, int i)
      throws ApiException {
    GenericKubernetesApi<O, ?> api = kind.api(kube.adminClient());
    O object = JSON.getGson().fromJson(JSON.getGson().toJson(doc.object()), kind.type());
    // A file may hold several documents: the index keeps their names apart.
    String name =
        "rt-" + ns + "-" + i + "-" + doc.file().getFileName().toString().replace(".yaml", "");
    object.setMetadata(new V1ObjectMeta().name(name).namespace(kind.namespaced() ? ns : null));

    O created = api.create(object).throwsApiException().getObject();
    assertThat(created.getMetadata().getUid()).isNotEmpty();
    O read =
        (kind.namespaced() ? api.get(ns, name) : api.get(name)).throwsApiException().getObject();
    assertThat(read).isInstanceOf(kind.type());
    assertThat(tree(read.getSpec()))
        .as(name)
        .satisfies(s -> assertContains(s, tree(object.getSpec())));

    Object status = statusFor(read, now);
    setStatus(read, status);
    // The status subresource takes a PUT of the whole object (GenericKubernetesApi.updateStatus
    // sends
    // a PATCH body the API server refuses with 415).
    CustomObjectsApi objects = new CustomObjectsApi(kube.adminClient());
    Object body;
    try {
      body =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readValue(JSON.getGson().toJson(read), Map.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (kind.namespaced()) {
      objects
          .replaceNamespacedCustomObjectStatus(
              CustomResource.GROUP, CustomResource.VERSION, ns, kind.plural(), name, body)
          .execute();
    } else {
      objects
          .replaceClusterCustomObjectStatus(
              CustomResource.GROUP, CustomResource.VERSION, kind.plural(), name, body)
          .execute();
    }
    O again =
        (kind.namespaced() ? api.get(ns, name) : api.get(name)).throwsApiException().getObject();
    assertThat(tree(again.getStatus())).as(name).isEqualTo(tree(status));
    assertThat(again.getMetadata().getGeneration()).isEqualTo(read.getMetadata().getGeneration());
  }

  @SuppressWarnings("unchecked")
  private static void setStatus(CustomResource<?, ?> object, Object status) {
    ((CustomResource<Object, Object>) object).setStatus(status);
  }

  private static Object statusFor(CustomResource<?, ?> object, OffsetDateTime now) {
    V1Condition ready =
        new V1Condition()
            .type("Ready")
            .status("True")
            .reason("Observed")
            .message("checked by the round-trip test")
            .observedGeneration(1L)
            .lastTransitionTime(now);
    if (object instanceof CacheIndexResource) {
      CacheIndexResource.Status s = new CacheIndexResource.Status();
      CacheIndexResource.Replica replica = new CacheIndexResource.Replica();
      replica.id = "engine-0";
      replica.cacheMemoryBytes = 1L << 30;
      replica.hitRate = "0.5";
      replica.lastUpdate = now;
      // A named tenant: the untenanted bucket (id "") reaches the 1.20 test server as null and is
      // refused (422 "must be of type string"); the mirror's own tests cover that row.
      CacheIndexResource.Tenant untenanted = new CacheIndexResource.Tenant();
      untenanted.id = "team-a";
      untenanted.indexEntries = 7L;
      s.replicas = List.of(replica);
      s.tenants = List.of(untenanted);
      s.prefixes = new CacheIndexResource.Prefixes();
      s.prefixes.summary = new CacheIndexResource.PrefixSummary();
      s.prefixes.summary.total = 7;
      s.observedServer = "http://inference-cache-server:8081/snapshot";
      s.lastUpdated = now;
      return s;
    }
    ConditionedStatus s;
    if (object instanceof CacheBackend) {
      CacheBackend.Status b = new CacheBackend.Status();
      b.matchedEnginePods = 2;
      b.failOpen = true;
      b.firstAvailableAt = now;
      b.indexParticipation = new CacheBackend.IndexParticipation();
      b.indexParticipation.prefixCount = 12L;
      b.indexParticipation.lastEventAt = now;
      b.indexParticipation.t2HitRate = "0";
      s = b;
    } else if (object instanceof CacheTenant) {
      CacheTenant.Status t = new CacheTenant.Status();
      t.indexEntries = 42L;
      s = t;
    } else if (object instanceof PromptTemplate) {
      PromptTemplate.Status p = new PromptTemplate.Status();
      p.templateRevision = "r1";
      s = p;
    } else if (object instanceof PDTopology) {
      PDTopology.Status d = new PDTopology.Status();
      PDTopology.PoolStatus pool = new PDTopology.PoolStatus();
      pool.name = "prefill";
      pool.role = PDTopology.Role.PREFILL;
      pool.replicas = 2;
      d.pools = List.of(pool);
      s = d;
    } else {
      s = new ConditionedStatus();
    }
    s.observedGeneration = 1L;
    s.conditions = List.of(ready);
    return s;
  }

  private static String refusal(CustomObjectsApi api, String ns, Map<String, Object> spec) {
    Map<String, Object> body =
        Map.of(
            "apiVersion",
            V,
            "kind",
            "CachePolicy",
            "metadata",
            Map.of("name", "bad"),
            "spec",
            spec);
    Throwable[] thrown = new Throwable[1];
    assertThatThrownBy(
            () ->
                api.createNamespacedCustomObject(
                        CustomResource.GROUP, CustomResource.VERSION, ns, "cachepolicies", body)
                    .execute())
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              thrown[0] = e;
            });
    return ((ApiException) thrown[0]).getResponseBody();
  }

  private static void apply(KubeLocal kube, String ns, String yamlFlow) {
    // kubectl reads a document that starts with '{' as JSON, so the flow-style YAML goes as JSON.
    String doc = json("{apiVersion: " + V + ", " + yamlFlow.substring(1)).toString();
    ProcessResult r = kube.kubectlWithInput(doc, "apply", "--validate=false", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
  }

  private static JsonObject spec(KubeLocal kube, String ns, String resource, String name) {
    String out = kube.kubectl("get", resource, name, "-n", ns, "-o", "json").orThrow().stdout();
    return JsonParser.parseString(out).getAsJsonObject().getAsJsonObject("spec");
  }

  private static List<String> header(KubeLocal kube, String resource, String ns) {
    ProcessResult r =
        ns == null ? kube.kubectl("get", resource) : kube.kubectl("get", resource, "-n", ns);
    String out = r.orThrow().stdout();
    assertThat(out).as(resource + " in " + ns).isNotBlank();
    return Arrays.asList(out.lines().findFirst().orElseThrow().trim().split("\\s+"));
  }

  /** The first data row of a {@code kubectl get} table, cut at the header's column starts. */
  private static List<Map.Entry<String, String>> cells(String table) {
    List<String> lines = table.lines().toList();
    String header = lines.get(0);
    String row = lines.get(1);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\S+").matcher(header);
    List<int[]> spans = new java.util.ArrayList<>();
    List<String> names = new java.util.ArrayList<>();
    while (m.find()) {
      names.add(m.group());
      spans.add(new int[] {m.start(), 0});
    }
    List<Map.Entry<String, String>> out = new java.util.ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      int from = Math.min(spans.get(i)[0], row.length());
      int to = i + 1 < names.size() ? Math.min(spans.get(i + 1)[0], row.length()) : row.length();
      out.add(Map.entry(names.get(i), row.substring(from, to).trim()));
    }
    return out;
  }

  private static JsonElement json(String yamlFlow) {
    try {
      Object tree =
          new com.fasterxml.jackson.databind.ObjectMapper(
                  new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
              .readValue(yamlFlow, Object.class);
      return JsonParser.parseString(
          new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(tree));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static JsonElement tree(Object o) {
    return JsonParser.parseString(JSON.getGson().toJson(o));
  }

  /**
   * Every member of {@code expected} is in {@code actual} with the same value (defaults may add).
   */
  private static void assertContains(JsonElement actual, JsonElement expected) {
    if (expected instanceof JsonObject e && actual instanceof JsonObject a) {
      e.entrySet()
          .forEach(
              en -> {
                if (!(en.getValue().isJsonArray() && en.getValue().getAsJsonArray().isEmpty())
                    && !(en.getValue().isJsonObject()
                        && en.getValue().getAsJsonObject().isEmpty())) {
                  assertThat(a.has(en.getKey())).as(en.getKey() + " in " + a).isTrue();
                  assertContains(a.get(en.getKey()), en.getValue());
                }
              });
      return;
    }
    assertThat(actual).isEqualTo(expected);
  }
}
