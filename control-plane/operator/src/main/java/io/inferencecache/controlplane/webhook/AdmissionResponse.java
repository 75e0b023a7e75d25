package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;

/**
 * A webhook's verdict, encoded as the {@code response} of an {@code admission.k8s.io/v1}
 * AdmissionReview. A denial carries a {@code metav1.Status} (code, reason, message and, for {@code
 * Invalid}, one cause per field error); an admission may carry a JSON Patch.
 *
 * <p>Immutable; thread-safe.
 */
public final class AdmissionResponse {
  private final boolean allowed;
  private final int code;
  private final String reason;
  private final String message;
  private final ObjectNode details;
  private final ArrayNode patch;

  private AdmissionResponse(
      final boolean allowed,
      final int code,
      final String reason,
      final String message,
      final ObjectNode details,
      final ArrayNode patch) {
    this.allowed = allowed;
    this.code = code;
    this.reason = reason;
    this.message = message;
    this.details = details;
    this.patch = patch;
  }

  /** Admitted unchanged. */
  public static AdmissionResponse allow() {
    return new AdmissionResponse(true, 200, null, null, null, null);
  }

  /** Admitted with a JSON Patch; an empty patch is a plain admission. */
  public static AdmissionResponse patch(final ArrayNode operations) {
    return operations == null || operations.isEmpty()
        ? allow()
        : new AdmissionResponse(true, 200, null, null, null, operations);
  }

  /** Refused with a plain error (controller-runtime's {@code Denied}: 403 Forbidden). */
  public static AdmissionResponse denied(final String message) {
    return new AdmissionResponse(false, 403, "Forbidden", message, null, null);
  }

  /** Refused because the request itself is unusable (400 BadRequest). */
  public static AdmissionResponse badRequest(final String message) {
    return new AdmissionResponse(false, 400, "BadRequest", message, null, null);
  }

  /**
   * Refused as {@code apierrors.NewInvalid}: 422 Invalid, message {@code <Kind>.<group> "<name>" is
   * invalid: <error>} or {@code ...: [<error>, <error>]}, one cause per error.
   */
  public static AdmissionResponse invalid(
      final String group, final String kind, final String name, final List<FieldError> errors) {
    final StringBuilder m = new StringBuilder();
    m.append(kind).append('.').append(group).append(" \"").append(name).append("\" is invalid: ");
    if (errors.size() == 1) {
      m.append(errors.get(0));
    } else {
      m.append('[');
      for (int i = 0; i < errors.size(); i++) {
        m.append(i == 0 ? "" : ", ").append(errors.get(i));
      }
      m.append(']');
    }
    final ObjectNode details = AdmissionRequest.JSON.createObjectNode();
    details.put("name", name).put("group", group).put("kind", kind);
    final ArrayNode causes = details.putArray("causes");
    for (final FieldError e : errors) {
      causes
          .addObject()
          .put("reason", e.type().reason())
          .put("message", e.causeMessage())
          .put("field", e.field());
    }
    return new AdmissionResponse(false, 422, "Invalid", m.toString(), details, null);
  }

  public boolean allowed() {
    return allowed;
  }

  /** HTTP-style status code of the verdict (200 when allowed). */
  public int code() {
    return code;
  }

  /** The Status message of a denial, or null. */
  public String message() {
    return message;
  }

  /** The JSON Patch, or null. */
  public ArrayNode patchOperations() {
    return patch;
  }

  /** The whole AdmissionReview answering request {@code uid}. */
  public byte[] encode(final String uid) {
    final ObjectNode review = AdmissionRequest.JSON.createObjectNode();
    review.put("apiVersion", AdmissionRequest.API_VERSION).put("kind", "AdmissionReview");
    final ObjectNode response = review.putObject("response");
    response.put("uid", uid).put("allowed", allowed);
    if (!allowed) {
      final ObjectNode status = response.putObject("status");
      status.put("status", "Failure").put("code", code).put("reason", reason);
      status.put("message", message);
      if (details != null) {
        status.set("details", details);
      }
    }
    if (patch != null) {
      try {
        response.put("patchType", "JSONPatch");
        response.put(
            "patch",
            Base64.getEncoder().encodeToString(AdmissionRequest.JSON.writeValueAsBytes(patch)));
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
    }
    try {
      return AdmissionRequest.JSON.writeValueAsBytes(review);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return allowed
        ? "allowed" + (patch == null ? "" : " with patch " + patch)
        : "denied " + code + " " + reason + ": " + message;
  }
}
