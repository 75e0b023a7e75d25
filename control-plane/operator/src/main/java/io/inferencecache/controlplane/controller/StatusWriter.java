package io.inferencecache.controlplane.controller;

import com.google.gson.JsonObject;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;

/**
 * Writes the {@code status} subresource of the controller's custom resources. The generic client's
 * {@code updateStatus} sends a PATCH without a patch media type, which the API server answers with
 * 415; these calls use the two forms it accepts: a full replace ({@code PUT .../status}, guarded by
 * the {@code resourceVersion} of the object read, so a concurrent writer yields a 409 and the next
 * tick retries) and a JSON merge patch of {@code {"status": ...}}. Thread-safe.
 */
final class StatusWriter {
  private final ApiClient client;
  private final CustomObjectsApi api;

  StatusWriter(final ApiClient client) {
    this.client = client;
    this.api = new CustomObjectsApi(client);
  }

  /**
   * Replaces the status of the cluster-scoped {@code current} with {@code status}.
   *
   * @throws ApiException with the API server's answer on any non-2xx
   */
  void replaceClusterStatus(final Kinds kind, final JsonObject current, final JsonObject status)
      throws ApiException {
    final JsonObject body = current.deepCopy();
    body.add("status", status);
    api.replaceClusterCustomObjectStatus(
            Kinds.GROUP, Kinds.VERSION, kind.plural(), Objects.name(current), body)
        .execute();
  }

  /**
   * Merge-patches {@code status} into the namespaced object {@code namespace/name}.
   *
   * @throws ApiException with the API server's answer on any non-2xx
   */
  void mergeStatus(
      final Kinds kind, final String namespace, final String name, final JsonObject status)
      throws ApiException {
    final JsonObject patch = new JsonObject();
    patch.add("status", status);
    PatchUtils.patch(
        Object.class,
        () ->
            api.patchNamespacedCustomObjectStatus(
                    Kinds.GROUP,
                    Kinds.VERSION,
                    namespace,
                    kind.plural(),
                    name,
                    new V1Patch(patch.toString()))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        client);
  }

  /** The API server's own message of a failed write ({@code Status.message}), else its body. */
  static String message(final ApiException e) {
    final String body = e.getResponseBody();
    if (body != null && !body.isBlank()) {
      try {
        final JsonObject status = com.google.gson.JsonParser.parseString(body).getAsJsonObject();
        final String m = Objects.string(status, "message");
        if (m != null) {
          return e.getCode() + " " + m;
        }
      } catch (RuntimeException notJson) {
        return e.getCode() + " " + body.strip();
      }
    }
    return e.getCode() + " " + e.getMessage();
  }
}
