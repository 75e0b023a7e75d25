package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Builds AdmissionReview requests and reads verdicts, for the webhook tests. */
final class Reviews {
  private Reviews() {}

  /** A whole AdmissionReview body. */
  static String body(
      final String operation,
      final String group,
      final String kind,
      final String namespace,
      final String objectJson,
      final String oldJson) {
    final ObjectNode review = AdmissionRequest.JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    final ObjectNode r = review.putObject("request");
    r.put("uid", "uid-1");
    r.putObject("kind")
        .put("group", group)
        .put("version", group.isEmpty() ? "v1" : "v1alpha1")
        .put("kind", kind);
    r.put("operation", operation).put("namespace", namespace);
    if (objectJson != null) {
      r.set("object", tree(objectJson));
      r.put("name", tree(objectJson).path("metadata").path("name").asText(""));
    }
    if (oldJson != null) {
      r.set("oldObject", tree(oldJson));
    }
    return review.toString();
  }

  /** The decoded request of {@link #body}. */
  static AdmissionRequest request(
      final String operation,
      final String group,
      final String kind,
      final String namespace,
      final String objectJson,
      final String oldJson) {
    final byte[] b =
        body(operation, group, kind, namespace, objectJson, oldJson)
            .getBytes(StandardCharsets.UTF_8);
    try {
      return AdmissionRequest.decode(b, b.length);
    } catch (AdmissionReviewException e) {
      throw new IllegalArgumentException(e);
    }
  }

  static AdmissionRequest create(final String kind, final String ns, final String json) {
    return request("CREATE", "inferencecache.io", kind, ns, json, null);
  }

  static AdmissionRequest update(
      final String kind, final String ns, final String json, final String oldJson) {
    return request("UPDATE", "inferencecache.io", kind, ns, json, oldJson);
  }

  static AdmissionRequest pod(final String ns, final String json) {
    return request("CREATE", "", "Pod", ns, json, null);
  }

  /** The object after the response's patch (the object itself when there is none). */
  static JsonNode patched(final AdmissionRequest request, final AdmissionResponse response) {
    final JsonNode patch = response.patchOperations();
    final ObjectNode doc = request.object().deepCopy();
    if (patch == null) {
      return doc;
    }
    return JsonPatchApply.apply(doc, patch);
  }

  /** The JSON tree of a (single-quoted) JSON text. */
  static JsonNode tree(final String json) {
    try {
      return AdmissionRequest.JSON.readTree(json.replace('\'', '"'));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The base64 patch of an encoded review response, decoded. */
  static JsonNode encodedPatch(final byte[] reviewJson) throws IOException {
    final JsonNode r = AdmissionRequest.JSON.readTree(reviewJson).path("response");
    return AdmissionRequest.JSON.readTree(Base64.getDecoder().decode(r.path("patch").asText()));
  }
}
