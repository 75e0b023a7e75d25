package io.inferencecache.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** The objects of one {@code kubectl kustomize} output, parsed, with look-ups by kind and name. */
record RenderedBundle(List<JsonNode> objects) {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static RenderedBundle parse(final String yaml) {
    final List<JsonNode> docs = new ArrayList<>();
    try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
      while (it.hasNext()) {
        final JsonNode d = it.next();
        if (d != null && !d.isNull() && !d.isEmpty()) {
          docs.add(d);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("not YAML: " + yaml, e);
    }
    return new RenderedBundle(List.copyOf(docs));
  }

  List<JsonNode> ofKind(final String kind) {
    return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
  }

  JsonNode get(final String kind, final String name) {
    return ofKind(kind).stream()
        .filter(o -> name.equals(o.at("/metadata/name").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered"));
  }

  /** {@code kind/name} of every object. */
  List<String> ids() {
    return objects.stream()
        .map(o -> o.path("kind").asText() + "/" + o.at("/metadata/name").asText())
        .toList();
  }

  RenderedBundle without(final Predicate<JsonNode> drop) {
    return new RenderedBundle(objects.stream().filter(drop.negate()).toList());
  }

  /** The objects again as one multi-document YAML text. */
  String yaml() {
    return objects.stream()
        .map(
            o -> {
              try {
                return YAML.writeValueAsString(o);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .collect(Collectors.joining());
  }

  /** The Deployment's one container. */
  static JsonNode container(final JsonNode deployment) {
    final JsonNode containers = deployment.at("/spec/template/spec/containers");
    if (containers.size() != 1) {
      throw new AssertionError("expected one container in " + deployment.at("/metadata/name"));
    }
    return containers.get(0);
  }

  /** Its {@code command} followed by its {@code args}. */
  static List<String> commandLine(final JsonNode container) {
    final List<String> line = new ArrayList<>();
    container.path("command").forEach(n -> line.add(n.asText()));
    container.path("args").forEach(n -> line.add(n.asText()));
    return line;
  }

  /** True if every pair of {@code selector} is among {@code labels} (a label selector's match). */
  static boolean selects(final JsonNode selector, final JsonNode labels) {
    if (!(selector instanceof ObjectNode) || selector.isEmpty()) {
      return false;
    }
    for (final Map.Entry<String, JsonNode> e : selector.properties()) {
      if (!e.getValue().asText().equals(labels.path(e.getKey()).asText(null))) {
        return false;
      }
    }
    return true;
  }
}
