package io.inferencecache.controlplane.controller.status;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;

/**
 * Writes the {@code status} subresource of the operator's custom resources, typed objects in and
 * {@link CrText#tree} on the wire. The generic client's {@code updateStatus} sends a PATCH without
 * a patch media type, which the API server answers with 415; these calls use the two forms it
 * accepts: a full replace ({@code PUT .../status}, guarded by the {@code resourceVersion} of the
 * object read, so a concurrent writer or a stale cache yields a 409 and the caller retries) and a
 * JSON merge patch of {@code {"status": ...}}. Thread-safe.
 */
public final class StatusWriter {
  private final ApiClient client;
  private final CustomObjectsApi api;

  public StatusWriter(final ApiClient client) {
    this.client = client;
    this.api = new CustomObjectsApi(client);
  }

  /**
   * Replaces the status of {@code cr} (cluster-scoped or namespaced, as {@code kind} says) with the
   * status it carries.
   *
   * @throws ApiException with the API server's answer on any non-2xx
   */
  public void replaceStatus(final CrdKind<?, ?> kind, final CustomResource<?, ?> cr)
      throws ApiException {
    final String name = cr.getMetadata().getName();
    final JsonElement body = CrText.tree(cr);
    if (kind.namespaced()) {
      api.replaceNamespacedCustomObjectStatus(
              CustomResource.GROUP,
              CustomResource.VERSION,
              cr.getMetadata().getNamespace(),
              kind.plural(),
              name,
              body)
          .execute();
    } else {
      api.replaceClusterCustomObjectStatus(
              CustomResource.GROUP, CustomResource.VERSION, kind.plural(), name, body)
          .execute();
    }
  }

  /**
   * Merge-patches {@code status} (a typed status object) into the namespaced object {@code
   * namespace/name}.
   *
   * @throws ApiException with the API server's answer on any non-2xx
   */
  public void mergeStatus(
      final CrdKind<?, ?> kind, final String namespace, final String name, final Object status)
      throws ApiException {
    final JsonObject patch = new JsonObject();
    patch.add("status", CrText.tree(status));
    PatchUtils.patch(
        Object.class,
        () ->
            api.patchNamespacedCustomObjectStatus(
                    CustomResource.GROUP,
                    CustomResource.VERSION,
                    namespace,
                    kind.plural(),
                    name,
                    new V1Patch(patch.toString()))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        client);
  }

  /** The API server's own message of a failed write ({@code Status.message}), else its body. */
  public static String message(final ApiException e) {
    final String body = e.getResponseBody();
    if (body != null && !body.isBlank()) {
      try {
        final JsonElement m = JsonParser.parseString(body).getAsJsonObject().get("message");
        if (m != null && m.isJsonPrimitive() && m.getAsJsonPrimitive().isString()) {
          return e.getCode() + " " + m.getAsString();
        }
      } catch (RuntimeException notJson) {
        return e.getCode() + " " + body.strip();
      }
    }
    return e.getCode() + " " + e.getMessage();
  }
}
