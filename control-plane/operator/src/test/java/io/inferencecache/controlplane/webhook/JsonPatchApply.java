package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Applies RFC 6902 {@code add}, {@code remove} and {@code replace} operations as the API server
 * does (strictly: a replace or remove of a missing member fails), so tests see what a patch makes.
 */
final class JsonPatchApply {
  private JsonPatchApply() {}

  static JsonNode apply(final ObjectNode doc, final JsonNode patch) {
    JsonNode root = doc;
    for (final JsonNode op : patch) {
      final String path = op.path("path").asText();
      if (path.isEmpty()) {
        root = op.get("value");
        continue;
      }
      final String[] parts = path.substring(1).split("/", -1);
      JsonNode parent = root;
      for (int i = 0; i < parts.length - 1; i++) {
        parent = child(parent, unescape(parts[i]));
        if (parent == null) {
          throw new IllegalArgumentException("no parent for " + path);
        }
      }
      final String last = unescape(parts[parts.length - 1]);
      final String kind = op.path("op").asText();
      if (parent instanceof ObjectNode o) {
        if (!kind.equals("add") && !o.has(last)) {
          throw new IllegalArgumentException(kind + " of missing member " + path);
        }
        if (kind.equals("remove")) {
          o.remove(last);
        } else {
          o.set(last, op.get("value"));
        }
      } else if (parent instanceof ArrayNode a) {
        if (kind.equals("add")) {
          if (last.equals("-")) {
            a.add(op.get("value"));
          } else {
            a.insert(Integer.parseInt(last), op.get("value"));
          }
        } else if (kind.equals("remove")) {
          a.remove(Integer.parseInt(last));
        } else {
          a.set(Integer.parseInt(last), op.get("value"));
        }
      } else {
        throw new IllegalArgumentException("cannot apply " + op);
      }
    }
    return root;
  }

  private static JsonNode child(final JsonNode n, final String name) {
    return n.isArray() ? n.get(Integer.parseInt(name)) : n.get(name);
  }

  private static String unescape(final String s) {
    return s.replace("~1", "/").replace("~0", "~");
  }
}
