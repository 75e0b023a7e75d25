package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The RFC 6902 patch that turns one JSON document into another: objects are compared member by
 * member, arrays element by element over their common length, then {@code add /-} per element that
 * is new or {@code remove} (from the end) per element that is gone; any other change is one {@code
 * replace}. Unchanged parts are never mentioned, so the user's own fields reach the API server byte
 * for byte.
 */
final class JsonPatch {
  private JsonPatch() {}

  /** The operations turning {@code from} into {@code to} (empty when equal). */
  static ArrayNode diff(final JsonNode from, final JsonNode to) {
    final ArrayNode out = AdmissionRequest.JSON.createArrayNode();
    diff(from, to, "", out);
    return out;
  }

  private static void diff(
      final JsonNode from, final JsonNode to, final String path, final ArrayNode out) {
    if (from.equals(to)) {
      return;
    }
    if (from.isObject() && to.isObject()) {
      final Iterator<String> names = from.fieldNames();
      while (names.hasNext()) {
        final String name = names.next();
        if (!to.has(name)) {
          out.addObject().put("op", "remove").put("path", path + "/" + escape(name));
        }
      }
      for (final Map.Entry<String, JsonNode> f : to.properties()) {
        final String p = path + "/" + escape(f.getKey());
        final JsonNode before = from.get(f.getKey());
        if (before == null) {
          out.addObject().put("op", "add").put("path", p).set("value", f.getValue());
        } else {
          diff(before, f.getValue(), p, out);
        }
      }
      return;
    }
    if (from.isArray() && to.isArray()) {
      final int common = Math.min(from.size(), to.size());
      for (int i = 0; i < common; i++) {
        diff(from.get(i), to.get(i), path + "/" + i, out);
      }
      for (int i = common; i < to.size(); i++) {
        out.addObject().put("op", "add").put("path", path + "/-").set("value", to.get(i));
      }
      for (int i = from.size() - 1; i >= common; i--) {
        out.addObject().put("op", "remove").put("path", path + "/" + i);
      }
      return;
    }
    out.addObject().put("op", "replace").put("path", path).set("value", to);
  }

  private static String escape(final String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
