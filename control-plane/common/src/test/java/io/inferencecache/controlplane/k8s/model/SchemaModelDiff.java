package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Walks an OpenAPI v3 schema and a gson-serialised Java type side by side and lists every
 * difference: a property on one side only, or a schema type the Java type cannot hold (string /
 * enum / date-time / int-or-string / quantity, int32 / int64, boolean, number, array, map, object).
 */
final class SchemaModelDiff {
  private final List<String> problems = new ArrayList<>();

  static List<String> diff(Map<String, Object> schema, Type type) {
    SchemaModelDiff d = new SchemaModelDiff();
    d.compare("", schema, type);
    return d.problems;
  }

  @SuppressWarnings("unchecked")
  private void compare(String path, Map<String, Object> schema, Type type) {
    compare(path, schema, type, false);
  }

  /**
   * {@code apiType}: inside a client-java model class, whose enums are plain strings; an enum
   * schema there only needs a String.
   */
  @SuppressWarnings("unchecked")
  private void compare(String path, Map<String, Object> schema, Type type, boolean apiType) {
    Class<?> raw = raw(type);
    if (raw == V1ObjectMeta.class) {
      // The API server's own ObjectMeta: the CRD only says "object".
      expect(
          path,
          "object".equals(schema.get("type")) && !schema.containsKey("properties"),
          "object without properties",
          type);
      return;
    }
    if (Boolean.TRUE.equals(schema.get("x-kubernetes-int-or-string"))) {
      Class<?> want = schema.containsKey("pattern") ? Quantity.class : IntOrString.class;
      expect(
          path, raw == want, "int-or-string" + (want == Quantity.class ? " quantity" : ""), type);
      return;
    }
    String t = String.valueOf(schema.get("type"));
    switch (t) {
      case "string" -> compareString(path, schema, raw, type, apiType);
      case "integer" -> {
        boolean int64 = "int64".equals(schema.get("format"));
        expect(
            path,
            int64
                ? raw == Long.class || raw == long.class
                : raw == Integer.class || raw == int.class,
            "integer " + schema.get("format"),
            type);
      }
      case "boolean" -> expect(path, raw == Boolean.class || raw == boolean.class, t, type);
      case "number" -> expect(path, raw == Double.class || raw == double.class, t, type);
      case "array" -> {
        if (expect(path, List.class.isAssignableFrom(raw), t, type)) {
          compare(
              path + "[]", (Map<String, Object>) schema.get("items"), typeArg(type, 0), apiType);
        }
      }
      case "object" -> compareObject(path, schema, raw, type, apiType);
      default -> problems.add(path + ": schema type " + t + " is not handled");
    }
  }

  private void compareString(
      String path, Map<String, Object> schema, Class<?> raw, Type type, boolean apiType) {
    if ("date-time".equals(schema.get("format"))) {
      expect(path, raw == OffsetDateTime.class, "string date-time", type);
      return;
    }
    Object values = schema.get("enum");
    if (values == null || (apiType && raw == String.class)) {
      expect(path, raw == String.class, "string", type);
      return;
    }
    if (!expect(path, raw.isEnum(), "enum " + values, type)) {
      return;
    }
    Set<String> javaValues = new TreeSet<>();
    for (Object constant : raw.getEnumConstants()) {
      Enum<?> e = (Enum<?>) constant;
      try {
        SerializedName sn = raw.getField(e.name()).getAnnotation(SerializedName.class);
        javaValues.add(sn != null ? sn.value() : e.name());
      } catch (NoSuchFieldException ex) {
        throw new IllegalStateException(ex);
      }
    }
    Set<String> schemaValues = new TreeSet<>();
    ((List<?>) values).forEach(v -> schemaValues.add(String.valueOf(v)));
    if (!javaValues.equals(schemaValues)) {
      problems.add(
          path + ": enum " + schemaValues + " but " + raw.getName() + " has " + javaValues);
    }
  }

  @SuppressWarnings("unchecked")
  private void compareObject(
      String path, Map<String, Object> schema, Class<?> raw, Type type, boolean apiType) {
    Map<String, Object> props = (Map<String, Object>) schema.get("properties");
    Object additional = schema.get("additionalProperties");
    if (additional instanceof Map<?, ?> values) {
      if (expect(path, Map.class.isAssignableFrom(raw), "map", type)) {
        compare(path + "[*]", (Map<String, Object>) values, typeArg(type, 1), apiType);
      }
      return;
    }
    if (props == null && Boolean.TRUE.equals(schema.get("x-kubernetes-preserve-unknown-fields"))) {
      expect(path, Map.class.isAssignableFrom(raw), "free-form object (Map)", type);
      return;
    }
    if (!expect(path, !Map.class.isAssignableFrom(raw) && !raw.isPrimitive(), "object", type)) {
      return;
    }
    Map<String, Field> fields = fields(raw);
    Map<String, Object> properties = props == null ? Map.of() : props;
    for (String name : properties.keySet()) {
      if (!fields.containsKey(name)) {
        problems.add(join(path, name) + ": in the schema, not in " + raw.getName());
      }
    }
    fields.forEach(
        (name, field) -> {
          Object child = properties.get(name);
          if (child == null) {
            problems.add(join(path, name) + ": in " + raw.getName() + ", not in the schema");
          } else {
            compare(
                join(path, name),
                (Map<String, Object>) child,
                resolve(type, field),
                raw.getPackageName().equals(V1ObjectMeta.class.getPackageName()));
          }
        });
  }

  /** Serialised fields of {@code raw} and its superclasses, by JSON name. */
  static Map<String, Field> fields(Class<?> raw) {
    Map<String, Field> out = new LinkedHashMap<>();
    for (Class<?> c = raw; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || Modifier.isTransient(f.getModifiers())) {
          continue;
        }
        SerializedName sn = f.getAnnotation(SerializedName.class);
        out.put(sn != null ? sn.value() : f.getName(), f);
      }
    }
    return out;
  }

  /** The field's type with the type variables of a generic superclass (spec, status) resolved. */
  private static Type resolve(Type owner, Field field) {
    Type t = field.getGenericType();
    if (!(t instanceof java.lang.reflect.TypeVariable<?> variable)) {
      return t;
    }
    for (Class<?> c = raw(owner); c != null; c = c.getSuperclass()) {
      if (c.getGenericSuperclass() instanceof ParameterizedType p
          && p.getRawType() == field.getDeclaringClass()) {
        java.lang.reflect.TypeVariable<?>[] vars = field.getDeclaringClass().getTypeParameters();
        for (int i = 0; i < vars.length; i++) {
          if (vars[i].getName().equals(variable.getName())) {
            return p.getActualTypeArguments()[i];
          }
        }
      }
    }
    throw new IllegalStateException("unresolved " + variable + " in " + owner);
  }

  private boolean expect(String path, boolean ok, String schemaType, Type javaType) {
    if (!ok) {
      problems.add(path + ": schema " + schemaType + " but Java " + javaType.getTypeName());
    }
    return ok;
  }

  private static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    throw new IllegalStateException("unsupported type " + type);
  }

  private static Type typeArg(Type type, int index) {
    if (type instanceof ParameterizedType p) {
      return p.getActualTypeArguments()[index];
    }
    throw new IllegalStateException(type + " has no type arguments");
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
