package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.subscriber.config.SubscriberConfig;
import java.util.List;

/**
 * The {@code kvevent-subscriber} container: this project's {@code subscribe} command, reading the
 * engine's KV events on {@code tcp://127.0.0.1:5557} and reporting to the server's gRPC address as
 * replica {@code $(POD_NAME)} of tenant {@code $(POD_NAMESPACE)}. Its HTTP endpoint (the
 * subscriber's default {@code --http-address}) is the container port {@value #HTTP_PORT_NAME},
 * which the bundle's PodMonitor scrapes, with a liveness probe on {@code /healthz}. It has no
 * readiness probe on purpose: a not-ready sidecar would take the engine pod out of its Services
 * whenever the cache server or broker is down, and routing hints are advisory.
 *
 * @param image the sidecar image (it holds {@code /app/inference-cache.jar}, as the controller's)
 * @param serverAddress the gRPC {@code host:port} the sidecar reports to
 */
public record SubscriberSidecar(String image, String serverAddress) {
  /** The container's name; a pod that already has it is never given a second one. */
  public static final String NAME = "kvevent-subscriber";

  /** The engine's KV-event publisher address inside the pod. */
  public static final String ENGINE_ENDPOINT = "tcp://127.0.0.1:5557";

  /** Name of the container port of the sidecar's HTTP endpoint (scraped by the PodMonitor). */
  public static final String HTTP_PORT_NAME = "subscriber-http";

  /** The port of {@link SubscriberConfig#HTTP_ADDRESS_DEFAULT}. */
  public static final int HTTP_PORT =
      Integer.parseInt(SubscriberConfig.HTTP_ADDRESS_DEFAULT.substring(1));

  /** How the image starts the jar; the {@code subscribe} flags follow as args. */
  public static final List<String> COMMAND =
      List.of(
          "java",
          "-XX:+UseSerialGC",
          "-Xmx64m",
          "-XX:MaxMetaspaceSize=48m",
          "-jar",
          "/app/inference-cache.jar",
          "subscribe");

  /**
   * The container.
   *
   * @param modelId the backend's {@code observation.modelID}
   * @param hashScheme {@code vllm} or {@code sglang}
   * @param enginePort the engine's HTTP port (its {@code /metrics})
   * @param eventsOnly false adds {@code --ignore-block-removed=true} (an offload tier keeps removed
   *     blocks)
   */
  ObjectNode render(
      final String modelId,
      final String hashScheme,
      final int enginePort,
      final boolean eventsOnly) {
    final ObjectNode c = AdmissionRequest.JSON.createObjectNode();
    c.put("name", NAME).put("image", image).put("imagePullPolicy", "IfNotPresent");
    final ArrayNode command = c.putArray("command");
    COMMAND.forEach(command::add);
    final ArrayNode args = c.putArray("args");
    args.add("--engine-endpoint=" + ENGINE_ENDPOINT)
        .add("--server=" + serverAddress)
        .add("--replica-id=$(POD_NAME)")
        .add("--tenant-id=$(POD_NAMESPACE)")
        .add("--model-id=" + modelId)
        .add("--hash-scheme=" + hashScheme)
        .add("--engine-metrics-url=http://127.0.0.1:" + enginePort + "/metrics");
    if (!eventsOnly) {
      args.add("--ignore-block-removed=true");
    }
    c.putArray("ports")
        .addObject()
        .put("name", HTTP_PORT_NAME)
        .put("containerPort", HTTP_PORT)
        .put("protocol", "TCP");
    final ObjectNode liveness = c.putObject("livenessProbe");
    liveness.putObject("httpGet").put("path", "/healthz").put("port", HTTP_PORT_NAME);
    liveness
        .put("initialDelaySeconds", 20)
        .put("periodSeconds", 10)
        .put("timeoutSeconds", 2)
        .put("failureThreshold", 3);
    final ArrayNode env = c.putArray("env");
    fieldRef(env.addObject(), "POD_NAME", "metadata.name");
    fieldRef(env.addObject(), "POD_NAMESPACE", "metadata.namespace");
    final ObjectNode resources = c.putObject("resources");
    resources.putObject("requests").put("cpu", "10m").put("memory", "64Mi");
    resources.putObject("limits").put("cpu", "200m").put("memory", "128Mi");
    final ObjectNode sc = c.putObject("securityContext");
    sc.put("runAsNonRoot", true)
        .put("runAsUser", 65532)
        .put("allowPrivilegeEscalation", false)
        .put("readOnlyRootFilesystem", true);
    sc.putObject("capabilities").putArray("drop").add("ALL");
    return c;
  }

  private static void fieldRef(final ObjectNode e, final String name, final String path) {
    e.put("name", name).putObject("valueFrom").putObject("fieldRef").put("fieldPath", path);
  }
}
