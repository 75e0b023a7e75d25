package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.gson.Gson;
import com.google.gson.JsonParseException;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.validation.CrdCelRules;
import io.kubernetes.client.openapi.JSON;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The shape every validating webhook of this package shares. CREATE runs the object's own rules,
 * the CRD's CEL rules ({@link CrdCelRules}, so API servers that ignore CEL still refuse) and the
 * cross-object checks; UPDATE refuses only errors the update introduces (an error equal — type,
 * field, bad value, detail — to one of the old object's is grandfathered) plus the checks a kind
 * enforces on every update; DELETE and CONNECT are always allowed. All errors of one request are
 * aggregated into one {@code Invalid} answer; a sibling lookup that cannot be made fails the
 * request closed with a plain error.
 *
 * @param <T> object type
 */
abstract class CustomResourceValidator<T extends CustomResource<?, ?>> implements AdmissionHandler {
  private static final Gson GSON = JSON.getGson();

  /** A cross-object check that could not be made; the request is refused with this message. */
  static final class LookupFailed extends Exception {
    private static final long serialVersionUID = 1L;

    LookupFailed(final String message, final Throwable cause) {
      super(message, cause);
    }
  }

  private final CrdKind<T, ?> kind;
  private final CrdCelRules cel;

  CustomResourceValidator(final CrdKind<T, ?> kind) {
    this.kind = kind;
    this.cel = CrdCelRules.forKind(kind);
  }

  /**
   * Errors of the object on its own (the rules that also apply to updates, introduced-only).
   *
   * @param raw the object as sent, for values the typed model cannot hold (an unknown enum value)
   */
  abstract List<FieldError> objectErrors(T object, ObjectNode raw);

  /** Cross-object errors of a create. */
  List<FieldError> createErrors(final T object, final String namespace) throws LookupFailed {
    return List.of();
  }

  /** Errors checked on every update, never grandfathered. */
  List<FieldError> updateErrors(final T object, final T old, final String namespace)
      throws LookupFailed {
    return List.of();
  }

  @Override
  public final AdmissionResponse handle(final AdmissionRequest request) {
    if ("DELETE".equals(request.operation()) || "CONNECT".equals(request.operation())) {
      return AdmissionResponse.allow();
    }
    final String expected = CustomResource.GROUP + "/" + CustomResource.VERSION + ", Kind=";
    if (!CustomResource.GROUP.equals(request.group()) || !kind.kind().equals(request.kind())) {
      return AdmissionResponse.badRequest(
          "this webhook admits " + expected + kind.kind() + ", got " + request.kindString());
    }
    if (request.object() == null) {
      return AdmissionResponse.badRequest("request.object is missing");
    }
    final T object;
    final T old;
    try {
      object = decode(request.object());
      old = request.oldObject() == null ? null : decode(request.oldObject());
    } catch (JsonParseException | IllegalStateException | ClassCastException e) {
      return AdmissionResponse.badRequest(
          "cannot decode the " + kind.kind() + ": " + e.getMessage());
    }
    String namespace = request.namespace();
    if (namespace.isEmpty() && object.getMetadata() != null) {
      namespace = String.valueOf(object.getMetadata().getNamespace());
    }
    final List<FieldError> errors = new ArrayList<>();
    try {
      if ("UPDATE".equals(request.operation()) && old != null) {
        final Set<FieldError> before = new LinkedHashSet<>(objectErrors(old, request.oldObject()));
        before.addAll(celErrors(request.oldObject(), null));
        final List<FieldError> now = new ArrayList<>(objectErrors(object, request.object()));
        now.addAll(celErrors(request.object(), request.oldObject()));
        for (final FieldError e : now) {
          if (!before.contains(e)) {
            errors.add(e);
          }
        }
        for (final FieldError e : updateErrors(object, old, namespace)) {
          if (!errors.contains(e)) {
            errors.add(e);
          }
        }
      } else {
        errors.addAll(objectErrors(object, request.object()));
        errors.addAll(celErrors(request.object(), null));
        errors.addAll(createErrors(object, namespace));
      }
    } catch (LookupFailed e) {
      return AdmissionResponse.denied(e.getMessage());
    }
    if (errors.isEmpty()) {
      return AdmissionResponse.allow();
    }
    final String name =
        object.getMetadata() != null && object.getMetadata().getName() != null
            ? object.getMetadata().getName()
            : request.name();
    return AdmissionResponse.invalid(CustomResource.GROUP, kind.kind(), name, errors);
  }

  private T decode(final ObjectNode node) {
    final T value = GSON.fromJson(node.toString(), kind.type());
    if (value == null) {
      throw new JsonParseException("empty object");
    }
    return value;
  }

  private List<FieldError> celErrors(final ObjectNode object, final ObjectNode old) {
    final List<FieldError> out = new ArrayList<>();
    try {
      for (final CrdCelRules.Violation v : cel.validate(tree(object), tree(old))) {
        out.add(new FieldError(FieldError.Type.INVALID, v.field(), null, v.message()));
      }
    } catch (RuntimeException e) {
      out.add(FieldError.invalid("", "object", "CEL rules cannot run: " + e.getMessage()));
    }
    return out;
  }

  private static Map<String, Object> tree(final ObjectNode node) {
    return node == null
        ? null
        : AdmissionRequest.JSON.convertValue(node, new TypeReference<Map<String, Object>>() {});
  }

  /** The smallest name in {@code names} other than {@code self}, or null. */
  static String smallestOther(final List<String> names, final String self) {
    String best = null;
    for (final String n : names) {
      if (n != null && !n.equals(self) && (best == null || n.compareTo(best) < 0)) {
        best = n;
      }
    }
    return best;
  }
}
