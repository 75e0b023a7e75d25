package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Set;

/**
 * The {@code request} of an {@code admission.k8s.io/v1} AdmissionReview, as the API server sends it
 * to a webhook.
 *
 * @param uid the request id, echoed in the response (never empty)
 * @param group API group of the object's kind ({@code ""} for core)
 * @param version API version of the object's kind
 * @param kind the object's kind, e.g. {@code Pod}
 * @param operation {@code CREATE}, {@code UPDATE}, {@code DELETE} or {@code CONNECT}
 * @param namespace the request's namespace ({@code ""} for cluster-scoped objects)
 * @param name the object's name ({@code ""} when the server generates it)
 * @param object the new object, or null (DELETE)
 * @param oldObject the old object (UPDATE, DELETE), or null
 * @param dryRun true when nothing will be persisted
 */
public record AdmissionRequest(
    String uid,
    String group,
    String version,
    String kind,
    String operation,
    String namespace,
    String name,
    ObjectNode object,
    ObjectNode oldObject,
    boolean dryRun) {

  /** The only AdmissionReview version served (the API server offers it first). */
  public static final String API_VERSION = "admission.k8s.io/v1";

  private static final Set<String> OPERATIONS = Set.of("CREATE", "UPDATE", "DELETE", "CONNECT");

  /**
   * Strict JSON: duplicate keys and trailing content are errors, nesting is bounded; numbers keep
   * their literal form ({@code 2.50} stays {@code 2.50}) so a patch never rewrites them.
   */
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  static {
    JSON.getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder().maxNestingDepth(256).maxNumberLength(64).build());
  }

  /**
   * Decodes the first {@code length} bytes of {@code body}.
   *
   * @throws AdmissionReviewException naming what is wrong: not JSON, not an AdmissionReview, an
   *     unsupported apiVersion, a missing uid or kind, an unknown operation, an object that is not
   *     a JSON object
   */
  public static AdmissionRequest decode(final byte[] body, final int length)
      throws AdmissionReviewException {
    if (length == 0) {
      throw new AdmissionReviewException("request body is empty");
    }
    final JsonNode root;
    try (JsonParser p = JSON.getFactory().createParser(body, 0, length)) {
      root = JSON.readTree(p);
    } catch (IOException | RuntimeException e) {
      throw new AdmissionReviewException(
          "request body is not valid JSON: " + firstLine(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new AdmissionReviewException("request body is not a JSON object");
    }
    final String apiVersion = text(root, "apiVersion");
    final String reviewKind = text(root, "kind");
    if (!"AdmissionReview".equals(reviewKind)) {
      throw new AdmissionReviewException("expected kind AdmissionReview, got " + quote(reviewKind));
    }
    if (!API_VERSION.equals(apiVersion)) {
      throw new AdmissionReviewException(
          "unsupported AdmissionReview apiVersion "
              + quote(apiVersion)
              + ": only "
              + API_VERSION
              + " is served");
    }
    final JsonNode request = root.get("request");
    if (request == null || !request.isObject()) {
      throw new AdmissionReviewException("AdmissionReview has no request");
    }
    final String uid = text(request, "uid");
    if (uid == null || uid.isEmpty()) {
      throw new AdmissionReviewException("request.uid is missing");
    }
    final JsonNode kind = request.get("kind");
    if (kind == null || !kind.isObject() || text(kind, "kind") == null) {
      throw new AdmissionReviewException("request.kind is missing");
    }
    final String operation = text(request, "operation");
    if (!OPERATIONS.contains(operation)) {
      throw new AdmissionReviewException("request.operation " + quote(operation) + " is unknown");
    }
    final JsonNode dryRun = request.get("dryRun");
    return new AdmissionRequest(
        uid,
        orEmpty(text(kind, "group")),
        orEmpty(text(kind, "version")),
        text(kind, "kind"),
        operation,
        orEmpty(text(request, "namespace")),
        orEmpty(text(request, "name")),
        object(request, "object"),
        object(request, "oldObject"),
        dryRun != null && dryRun.isBoolean() && dryRun.booleanValue());
  }

  /** {@code group/version, Kind=kind}, for messages. */
  public String kindString() {
    return (group.isEmpty() ? "" : group + "/") + version + ", Kind=" + kind;
  }

  private static ObjectNode object(final JsonNode request, final String field)
      throws AdmissionReviewException {
    final JsonNode n = request.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw new AdmissionReviewException("request." + field + " is not a JSON object");
    }
    return (ObjectNode) n;
  }

  private static String text(final JsonNode node, final String field) {
    final JsonNode n = node.get(field);
    return n != null && n.isTextual() ? n.textValue() : null;
  }

  private static String orEmpty(final String s) {
    return s == null ? "" : s;
  }

  static String quote(final String s) {
    return s == null ? "<none>" : "\"" + s + "\"";
  }

  private static String firstLine(final String s) {
    if (s == null) {
      return "malformed";
    }
    final int nl = s.indexOf('\n');
    final String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }
}
