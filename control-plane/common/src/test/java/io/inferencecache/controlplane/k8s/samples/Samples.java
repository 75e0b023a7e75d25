package io.inferencecache.controlplane.k8s.samples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The files of {@code ops/samples} and their inferencecache.io documents. */
public final class Samples {
  /** {@code ops/samples}, seen from the module directory the tests run in. */
  public static final Path DIR = Path.of("..", "..", "ops", "samples").toAbsolutePath().normalize();

  /** {@code ops/crds}. */
  public static final Path CRDS = Path.of("..", "..", "ops", "crds").toAbsolutePath().normalize();

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private Samples() {}

  /** Every sample file. */
  public static List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(DIR)) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  /** One document of a sample file of our API group, with its kind. */
  public record Doc(Path file, CrdKind<?, ?> kind, Map<String, Object> object) {}

  /** The documents of our API group in every sample file. */
  @SuppressWarnings("unchecked")
  public static List<Doc> documents() throws IOException {
    List<Doc> out = new ArrayList<>();
    for (Path file : files()) {
      try (YAMLParser parser = (YAMLParser) YAML.getFactory().createParser(file.toFile())) {
        for (var it = YAML.readValues(parser, Map.class); it.hasNext(); ) {
          Map<String, Object> object = it.next();
          if (CustomResource.API_VERSION.equals(object.get("apiVersion"))) {
            String kind = (String) object.get("kind");
            CrdKind<?, ?> crd =
                CrdKind.all().stream()
                    .filter(k -> k.kind().equals(kind))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(file + ": unknown kind " + kind));
            out.add(new Doc(file, crd, object));
          }
        }
      }
    }
    return out;
  }
}
