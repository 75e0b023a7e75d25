package io.inferencecache.controlplane.controller;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Null-tolerant reads of custom-resource JSON (the official client's dynamic objects keep a gson
 * tree): a missing member, a JSON {@code null} and a value of the wrong type all read as absent.
 */
final class Objects {
  private Objects() {}

  static JsonObject object(final JsonObject parent, final String member) {
    if (parent == null) {
      return null;
    }
    final JsonElement e = parent.get(member);
    return e != null && e.isJsonObject() ? e.getAsJsonObject() : null;
  }

  static String string(final JsonObject parent, final String member) {
    final JsonElement e = parent == null ? null : parent.get(member);
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()
        ? e.getAsString()
        : null;
  }

  static Long integer(final JsonObject parent, final String member) {
    final JsonElement e = parent == null ? null : parent.get(member);
    if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
      return null;
    }
    return e.getAsNumber().longValue();
  }

  static Boolean bool(final JsonObject parent, final String member) {
    final JsonElement e = parent == null ? null : parent.get(member);
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean()
        ? e.getAsBoolean()
        : null;
  }

  /** {@code metadata.namespace} ("" when absent). */
  static String namespace(final JsonObject cr) {
    final String ns = string(object(cr, "metadata"), "namespace");
    return ns == null ? "" : ns;
  }

  /** {@code metadata.name} ("" when absent). */
  static String name(final JsonObject cr) {
    final String n = string(object(cr, "metadata"), "name");
    return n == null ? "" : n;
  }

  /** {@code metadata.generation} (0 when absent). */
  static long generation(final JsonObject cr) {
    final Long g = integer(object(cr, "metadata"), "generation");
    return g == null ? 0 : g;
  }
}
