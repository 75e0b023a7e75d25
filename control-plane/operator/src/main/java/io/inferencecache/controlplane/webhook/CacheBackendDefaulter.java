package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code /mutate-inferencecache-io-v1alpha1-cachebackend}: materialises {@code spec.integration}
 * (an empty object, so the API server's schema defaults fill mode, role and failOpen) and {@code
 * spec.observation.firstEventTimeout} ({@code 5m0s}) when they are absent. Explicit values are
 * never touched; an object without a {@code spec} object is left to schema validation.
 */
public final class CacheBackendDefaulter implements AdmissionHandler {
  /** The KV-event gate window written when none is set, in Go duration syntax. */
  public static final String FIRST_EVENT_TIMEOUT_DEFAULT = "5m0s";

  @Override
  public AdmissionResponse handle(final AdmissionRequest request) {
    final ObjectNode object = request.object();
    if (object == null
        || !("CREATE".equals(request.operation()) || "UPDATE".equals(request.operation()))) {
      return AdmissionResponse.allow();
    }
    final JsonNode spec = object.get("spec");
    if (spec == null || !spec.isObject()) {
      return AdmissionResponse.allow();
    }
    final ArrayNode patch = AdmissionRequest.JSON.createArrayNode();
    final JsonNode integration = spec.get("integration");
    if (integration == null || integration.isNull()) {
      patch.addObject().put("op", "add").put("path", "/spec/integration").putObject("value");
    }
    final JsonNode observation = spec.get("observation");
    if (observation == null || observation.isNull()) {
      patch
          .addObject()
          .put("op", "add")
          .put("path", "/spec/observation")
          .putObject("value")
          .put("firstEventTimeout", FIRST_EVENT_TIMEOUT_DEFAULT);
    } else if (observation.isObject()
        && (observation.get("firstEventTimeout") == null
            || observation.get("firstEventTimeout").isNull())) {
      patch
          .addObject()
          .put("op", "add")
          .put("path", "/spec/observation/firstEventTimeout")
          .put("value", FIRST_EVENT_TIMEOUT_DEFAULT);
    }
    return AdmissionResponse.patch(patch);
  }
}
