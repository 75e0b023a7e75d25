package io.inferencecache.controlplane.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.kubelocal.KubeLocal;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the kube-local suites of the controller and the webhooks share: the CRDs of {@code
 * ops/crds}, {@code kubectl apply}, a controller run on its own thread, and reads of a custom
 * resource's conditions and of {@code events.k8s.io/v1} events.
 */
public final class KubeFixture {
  /** The API version of every custom resource. */
  public static final String API = "inferencecache.io/v1alpha1";

  private KubeFixture() {}

  /** {@code ops/crds} of this checkout, found upwards from the working directory. */
  public static Path crds() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("ops/crds"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no ops/crds above " + Path.of("").toAbsolutePath());
    }
    return p.resolve("ops/crds");
  }

  /** {@code kubectl apply -f -} of {@code yaml}, asserted to succeed. */
  public static void apply(final KubeLocal kube, final String yaml) {
    final var r = kube.kubectlWithInput(yaml, "apply", "--validate=false", "-f", "-");
    assertThat(r.exitCode()).as("kubectl apply: %s", r.stderr()).isZero();
  }

  /**
   * Options of an in-process controller without leader election or metrics listener: polls every
   * second, pushes every 30 s, Lease timings 15/10/2 s.
   */
  public static ControllerOptions controllerOptions(
      final KubeLocal kube,
      final String snapshotUrl,
      final String policyUrl,
      final Path policyToken,
      final Path controllerToken,
      final String leaseNamespace) {
    return new ControllerOptions(
        "0",
        "127.0.0.1:0",
        false,
        snapshotUrl,
        policyUrl,
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        kube.kubeconfig(),
        policyToken,
        controllerToken,
        leaseNamespace,
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2));
  }

  /**
   * Plays the deployment controller (kube-local runs none): Deployment {@code ns/name} reports one
   * replica, updated, for its current generation, {@code available} of them available.
   */
  public static void patchDeploymentStatus(
      final KubeLocal kube, final String ns, final String name, final int available)
      throws Exception {
    final AppsV1Api apps = new AppsV1Api(kube.adminClient());
    final V1Deployment d = apps.readNamespacedDeployment(name, ns).execute();
    d.status(
        new V1DeploymentStatus()
            .observedGeneration(d.getMetadata().getGeneration())
            .replicas(1)
            .updatedReplicas(1)
            .readyReplicas(available == 0 ? null : available)
            .availableReplicas(available == 0 ? null : available)
            .unavailableReplicas(available == 0 ? 1 : null));
    apps.replaceNamespacedDeploymentStatus(name, ns, d).execute();
  }

  /** Runs {@code runtime} on its own thread (stopped by {@link ControllerRuntime#close()}). */
  public static Thread runInBackground(final ControllerRuntime runtime) {
    final Thread t =
        new Thread(
            () -> {
              try {
                runtime.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "controller-under-test");
    t.start();
    return t;
  }

  /** {@code kubectl get <kind> <name> -n <ns> -o json}, asserted to exist. */
  public static JsonObject get(
      final KubeLocal kube, final String kind, final String ns, final String name) {
    final var r = kube.kubectl("get", kind, name, "-n", ns, "-o", "json");
    assertThat(r.exitCode()).as("kubectl get %s %s: %s", kind, name, r.stderr()).isZero();
    return JsonParser.parseString(r.stdout()).getAsJsonObject();
  }

  /** {@code [status, reason, message]} of condition {@code type} in {@code cr}, or null. */
  public static String[] condition(final JsonObject cr, final String type) {
    final JsonObject status = cr.getAsJsonObject("status");
    if (status == null || !status.has("conditions")) {
      return null;
    }
    for (final var e : status.getAsJsonArray("conditions")) {
      final JsonObject c = e.getAsJsonObject();
      if (type.equals(c.get("type").getAsString())) {
        return new String[] {
          c.get("status").getAsString(),
          c.get("reason").getAsString(),
          c.has("message") ? c.get("message").getAsString() : ""
        };
      }
    }
    return null;
  }

  /** Asserts condition {@code type} of {@code cr} has {@code status} and {@code reason}. */
  public static void assertCondition(
      final JsonObject cr, final String type, final String status, final String reason) {
    assertThat(condition(cr, type)).as("condition %s", type).startsWith(status, reason);
  }

  /** Asserts {@code cr} carries none of the condition {@code types}. */
  public static void assertNoCondition(final JsonObject cr, final String... types) {
    for (final String type : types) {
      assertThat(condition(cr, type)).as("condition %s", type).isNull();
    }
  }

  /** The {@code events.k8s.io/v1} events of {@code ns}. */
  public static List<EventsV1Event> events(final KubeLocal kube, final String ns) throws Exception {
    return new EventsV1Api(kube.adminClient()).listNamespacedEvent(ns).execute().getItems();
  }

  /** Whether {@code ns} holds an event of {@code reason} and {@code type} from {@code reporter}. */
  public static boolean hasEvent(
      final KubeLocal kube,
      final String ns,
      final String reason,
      final String type,
      final String reporter)
      throws Exception {
    return events(kube, ns).stream()
        .anyMatch(
            e ->
                reason.equals(e.getReason())
                    && type.equals(e.getType())
                    && reporter.equals(e.getReportingController()));
  }
}
