package io.inferencecache.controlplane.k8s.validation;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code x-kubernetes-validations} rules of one CRD schema, compiled once with cel-java and
 * evaluated as the API server evaluates them: each rule runs where its schema node has a value,
 * with {@code self} bound to that value; a rule that names {@code oldSelf} is a transition rule and
 * runs only on an update where the old object has a value at the same place (list-map items are
 * matched by their keys). A false result is a {@link Violation} with the rule's message (or "failed
 * rule: ..." when it has none); an evaluation error is a violation naming the error.
 *
 * <p>Objects are plain JSON trees (maps, lists, strings, numbers, booleans), as Jackson or gson
 * read them. Instances are immutable and safe to share between threads.
 */
public final class CrdCelRules {
  /** One rule as the CRD declares it. */
  public record Rule(String schemaPath, String expression, String message, boolean transition) {}

  /**
   * One refused rule.
   *
   * @param field path of the value the rule ran on (e.g. {@code
   *     spec.lmCache.podLocal.server.l1Capacity} or {@code spec.slots[0]}), plus the rule's {@code
   *     fieldPath} if it has one
   * @param message the rule's message, or the evaluation error
   * @param rule the rule's expression
   */
  public record Violation(String field, String message, String rule) {}

  private static final Cel CEL =
      CelFactory.standardCelBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("self", SimpleType.DYN)
          .addVar("oldSelf", SimpleType.DYN)
          .addCompilerLibraries(CelExtensions.strings())
          .addRuntimeLibraries(CelExtensions.strings())
          .addFunctionDeclarations(QuantityCelLibrary.declarations())
          .addFunctionBindings(QuantityCelLibrary.bindings())
          .build();

  private record Compiled(Rule rule, String fieldPath, CelRuntime.Program program) {}

  private static final class Node {
    final List<Compiled> rules = new ArrayList<>();
    final Map<String, Node> properties = new LinkedHashMap<>();
    Node items;
    Node additional;
    List<String> mapKeys = List.of();

    boolean isEmpty() {
      return rules.isEmpty() && properties.isEmpty() && items == null && additional == null;
    }
  }

  private final Node root;
  private final List<Rule> rules;

  private CrdCelRules(Node root, List<Rule> rules) {
    this.root = root;
    this.rules = List.copyOf(rules);
  }

  /** The rules of the shipped CRD of {@code kind}. */
  public static CrdCelRules forKind(CrdKind<?, ?> kind) {
    return fromSchema(CrdDocuments.schema(kind));
  }

  /**
   * Compiles every rule of an {@code openAPIV3Schema}.
   *
   * @throws IllegalArgumentException when a rule does not compile or uses {@code messageExpression}
   *     (not supported here)
   */
  public static CrdCelRules fromSchema(Map<String, Object> openApiV3Schema) {
    List<Rule> all = new ArrayList<>();
    Node root = build(openApiV3Schema, "", all);
    return new CrdCelRules(root == null ? new Node() : root, all);
  }

  /** Every rule, in schema order. */
  public List<Rule> rules() {
    return rules;
  }

  /** Violations of a new object (create): transition rules do not run. */
  public List<Violation> validate(Map<String, ?> object) {
    return validate(object, null);
  }

  /** Violations of {@code object} replacing {@code oldObject} (update; null for a create). */
  public List<Violation> validate(Map<String, ?> object, Map<String, ?> oldObject) {
    List<Violation> out = new ArrayList<>();
    walk(root, toCel(object), toCel(oldObject), "", out);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Node build(Map<String, Object> schema, String path, List<Rule> all) {
    if (schema == null) {
      return null;
    }
    Node node = new Node();
    Object validations = schema.get("x-kubernetes-validations");
    if (validations instanceof List<?> list) {
      for (Object o : list) {
        node.rules.add(compile((Map<String, Object>) o, path, all));
      }
    }
    if (schema.get("properties") instanceof Map<?, ?> props) {
      props.forEach(
          (name, child) -> {
            Node n = build((Map<String, Object>) child, join(path, (String) name), all);
            if (n != null) {
              node.properties.put((String) name, n);
            }
          });
    }
    if (schema.get("items") instanceof Map<?, ?> items) {
      node.items = build((Map<String, Object>) items, path + "[*]", all);
    }
    if (schema.get("additionalProperties") instanceof Map<?, ?> values) {
      node.additional = build((Map<String, Object>) values, path + "[*]", all);
    }
    if ("map".equals(schema.get("x-kubernetes-list-type"))
        && schema.get("x-kubernetes-list-map-keys") instanceof List<?> keys) {
      node.mapKeys = (List<String>) keys;
    }
    return node.isEmpty() ? null : node;
  }

  private static Compiled compile(Map<String, Object> decl, String path, List<Rule> all) {
    String expression = (String) decl.get("rule");
    if (expression == null) {
      throw new IllegalArgumentException("x-kubernetes-validations entry without rule at " + path);
    }
    if (decl.containsKey("messageExpression")) {
      throw new IllegalArgumentException(
          "messageExpression is not supported (rule " + expression + " at " + path + ")");
    }
    CelAbstractSyntaxTree ast;
    CelRuntime.Program program;
    try {
      ast = CEL.compile(expression).getAst();
      program = CEL.createProgram(ast);
    } catch (CelValidationException | CelEvaluationException e) {
      throw new IllegalArgumentException(
          "CEL rule at " + path + " does not compile: " + e.getMessage(), e);
    }
    boolean transition =
        ast.getReferenceMap().values().stream().anyMatch(r -> r.name().equals("oldSelf"));
    String message =
        Objects.requireNonNullElse((String) decl.get("message"), "failed rule: " + expression);
    Rule rule = new Rule(path, expression, message, transition);
    all.add(rule);
    return new Compiled(rule, (String) decl.get("fieldPath"), program);
  }

  private static void walk(Node node, Object value, Object old, String path, List<Violation> out) {
    if (value == null) {
      return;
    }
    for (Compiled c : node.rules) {
      if (c.rule.transition() && old == null) {
        continue;
      }
      String field = c.fieldPath == null ? path : path + c.fieldPath;
      Map<String, Object> vars = new HashMap<>();
      vars.put("self", value);
      if (old != null) {
        vars.put("oldSelf", old);
      }
      try {
        Object result = c.program.eval(vars);
        if (!Boolean.TRUE.equals(result)) {
          String message =
              result instanceof Boolean
                  ? c.rule.message()
                  : "rule did not evaluate to a bool: " + c.rule.expression();
          out.add(new Violation(field, message, c.rule.expression()));
        }
      } catch (CelEvaluationException e) {
        out.add(
            new Violation(field, "rule evaluation error: " + e.getMessage(), c.rule.expression()));
      }
    }
    if (value instanceof Map<?, ?> map) {
      Map<?, ?> oldMap = old instanceof Map<?, ?> m ? m : null;
      node.properties.forEach(
          (name, child) ->
              walk(
                  child,
                  map.get(name),
                  oldMap == null ? null : oldMap.get(name),
                  join(path, name),
                  out));
      if (node.additional != null) {
        map.forEach(
            (k, v) ->
                walk(
                    node.additional,
                    v,
                    oldMap == null ? null : oldMap.get(k),
                    path + "[" + k + "]",
                    out));
      }
    }
    if (value instanceof List<?> list && node.items != null) {
      List<?> oldList = old instanceof List<?> l ? l : null;
      for (int i = 0; i < list.size(); i++) {
        Object item = list.get(i);
        walk(node.items, item, correlate(node.mapKeys, item, oldList), path + "[" + i + "]", out);
      }
    }
  }

  /** The old item with the same list-map keys, or null (no keys, no match, no old list). */
  private static Object correlate(List<String> keys, Object item, List<?> oldList) {
    if (keys.isEmpty() || oldList == null || !(item instanceof Map<?, ?> itemMap)) {
      return null;
    }
    for (Object candidate : oldList) {
      if (candidate instanceof Map<?, ?> c
          && keys.stream().allMatch(k -> Objects.equals(itemMap.get(k), c.get(k)))) {
        return candidate;
      }
    }
    return null;
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  /** A JSON tree with CEL's value types: integers as long, other numbers as double. */
  private static Object toCel(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), toCel(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(v -> out.add(toCel(v)));
      return out;
    }
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger b) {
      return b.longValueExact();
    }
    if (value instanceof Float || value instanceof BigDecimal) {
      return ((Number) value).doubleValue();
    }
    return value;
  }
}
