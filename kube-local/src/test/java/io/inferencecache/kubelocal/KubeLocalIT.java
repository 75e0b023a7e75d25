package io.inferencecache.kubelocal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import io.kubernetes.client.util.Config;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@KubeLocalTest
class KubeLocalIT {

  @Test
  void apiServerAnswersOnLoopbackWithVersion120(KubeLocal kube) throws Exception {
    assertThat(kube.server()).startsWith("https://127.0.0.1:");
    assertThat(new VersionApi(kube.adminClient()).getCode().execute().getGitVersion())
        .isEqualTo("v1.20.2");

    ProcessResult namespaces = kube.kubectl("get", "ns", "-o", "name");
    assertThat(namespaces.exitCode()).as(namespaces.stderr()).isZero();
    assertThat(namespaces.stdout()).contains("namespace/default", "namespace/kube-system");
  }

  @Test
  void rbacRefusesAServiceAccountUntilARoleIsBound(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    String token = kube.createToken(ns, "reader", KubeLocal.ISSUER);
    CoreV1Api asReader = new CoreV1Api(kube.clientWithToken(token));

    assertThatThrownBy(() -> asReader.listNamespacedPod(ns).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(403));

    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(kube.adminClient());
    rbac.createNamespacedRole(
            ns,
            new V1Role()
                .metadata(new V1ObjectMeta().name("pod-reader"))
                .rules(
                    List.of(
                        new V1PolicyRule()
                            .apiGroups(List.of(""))
                            .resources(List.of("pods"))
                            .verbs(List.of("list")))))
        .execute();
    rbac.createNamespacedRoleBinding(
            ns,
            new V1RoleBinding()
                .metadata(new V1ObjectMeta().name("reader-reads-pods"))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("Role")
                        .name("pod-reader"))
                .subjects(
                    List.of(
                        new RbacV1Subject().kind("ServiceAccount").name("reader").namespace(ns))))
        .execute();

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(asReader.listNamespacedPod(ns).execute().getItems()).isEmpty());
    assertThatThrownBy(() -> asReader.listNamespacedConfigMap(ns).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }

  @Test
  void tokenReviewAuthenticatesATokenOnlyForItsAudience(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    String token = kube.createToken(ns, "engine", "inference-cache");

    V1TokenReviewStatus right = review(kube, token, "inference-cache");
    assertThat(right.getAuthenticated()).isTrue();
    assertThat(right.getUser().getUsername()).isEqualTo("system:serviceaccount:" + ns + ":engine");
    assertThat(right.getAudiences()).containsExactly("inference-cache");

    V1TokenReviewStatus wrong = review(kube, token, "someone-else");
    assertThat(wrong.getAuthenticated()).isNotEqualTo(Boolean.TRUE);
    assertThat(wrong.getError()).isNotBlank();
  }

  @Test
  void kubectlCreateTokenIssuesATokenForTheAskedAudience(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    assertThat(kube.kubectl("create", "serviceaccount", "cli", "-n", ns).exitCode()).isZero();

    ProcessResult created = kube.kubectl("create", "token", "cli", "-n", ns, "--audience", "x");

    assertThat(created.exitCode()).as(created.stderr()).isZero();
    assertThat(review(kube, created.stdout().strip(), "x").getAuthenticated()).isTrue();
  }

  @Test
  void crdFromYamlBecomesEstablishedAndServesACustomResource(KubeLocal kube) throws Exception {
    Path yaml = Path.of(getClass().getResource("/kube-local/widgets.yaml").toURI());
    assertThat(kube.applyCrdsFor120(yaml)).containsExactly("widgets.kubelocal.example.com");
    String ns = kube.newNamespace();

    CustomObjectsApi custom = new CustomObjectsApi(kube.adminClient());
    Map<String, Object> widget =
        Map.of(
            "apiVersion",
            "kubelocal.example.com/v1",
            "kind",
            "Widget",
            "metadata",
            Map.of("name", "w1"),
            "spec",
            Map.of());
    custom
        .createNamespacedCustomObject("kubelocal.example.com", "v1", ns, "widgets", widget)
        .execute();

    Object read =
        custom
            .getNamespacedCustomObject("kubelocal.example.com", "v1", ns, "widgets", "w1")
            .execute();
    assertThat(read).isInstanceOf(Map.class);
    assertThat(((Map<?, ?>) read).get("spec")).isEqualTo(Map.of("size", 3.0));
    ProcessResult listed = kube.kubectl("get", "wdg", "-n", ns, "-o", "name");
    assertThat(listed.stdout().strip()).isEqualTo("widget.kubelocal.example.com/w1");

    ProcessResult refused =
        kube.kubectlWithInput(
            "{\"apiVersion\":\"kubelocal.example.com/v1\",\"kind\":\"Widget\","
                + "\"metadata\":{\"name\":\"w2\"},\"spec\":{\"size\":0}}",
            "apply",
            "--validate=false",
            "-n",
            ns,
            "-f",
            "-");
    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.stderr())
        .contains("spec.size")
        .contains("should be greater than or equal to 1");
  }

  @Test
  void freshNamespacesAreDistinctAndActive(KubeLocal kube) throws Exception {
    String first = kube.newNamespace();
    String second = kube.newNamespace();

    assertThat(first).isNotEqualTo(second);
    CoreV1Api core = new CoreV1Api(kube.adminClient());
    assertThat(core.readNamespace(first).execute().getStatus().getPhase()).isEqualTo("Active");
    assertThat(core.readNamespace(second).execute().getStatus().getPhase()).isEqualTo("Active");
  }

  @Test
  void informerSeesAnAddEventThroughARealWatch(KubeLocal kube) throws Exception {
    String ns = kube.newNamespace();
    List<String> lists = new CopyOnWriteArrayList<>();
    List<Integer> watchStatuses = new CopyOnWriteArrayList<>();
    ApiClient watching = Config.fromConfig(kube.kubeconfig().toString());
    watching.setHttpClient(
        watching
            .getHttpClient()
            .newBuilder()
            .readTimeout(0, TimeUnit.SECONDS)
            .addInterceptor(
                chain -> {
                  okhttp3.Response response = chain.proceed(chain.request());
                  if ("true".equals(chain.request().url().queryParameter("watch"))) {
                    watchStatuses.add(response.code());
                  } else {
                    lists.add(chain.request().url().encodedPath());
                  }
                  return response;
                })
            .build());
    SharedInformerFactory factory = new SharedInformerFactory(watching);
    SharedIndexInformer<V1ConfigMap> informer =
        factory.sharedIndexInformerFor(
            new GenericKubernetesApi<>(
                V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", watching),
            V1ConfigMap.class,
            0,
            ns);
    Set<String> added = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1ConfigMap obj) {
            added.add(obj.getMetadata().getName());
          }

          @Override
          public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {}

          @Override
          public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {}
        });
    factory.startAllRegisteredInformers();
    try {
      await().atMost(Duration.ofSeconds(30)).until(informer::hasSynced);
      await().atMost(Duration.ofSeconds(30)).until(() -> watchStatuses.contains(200));

      new CoreV1Api(kube.adminClient())
          .createNamespacedConfigMap(
              ns, new V1ConfigMap().metadata(new V1ObjectMeta().name("seen")))
          .execute();

      await().atMost(Duration.ofSeconds(30)).until(() -> added.contains("seen"));
      assertThat(lists).as("one initial list, then the watch delivers").hasSize(1);
      assertThat(watchStatuses).containsOnly(200);
    } finally {
      factory.stopAllRegisteredInformers();
    }
  }

  private static V1TokenReviewStatus review(KubeLocal kube, String token, String audience)
      throws ApiException {
    return new AuthenticationV1Api(kube.adminClient())
        .createTokenReview(
            new V1TokenReview()
                .spec(new V1TokenReviewSpec().token(token).audiences(List.of(audience))))
        .execute()
        .getStatus();
  }
}
