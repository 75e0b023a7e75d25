package io.inferencecache.controlplane.k8s.validation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The shipped CustomResourceDefinitions ({@code ops/crds}), read from the classpath where the build
 * puts them.
 */
public final class CrdDocuments {
  /** Classpath folder of the CRD files. */
  public static final String RESOURCE_DIR = "/io/inferencecache/controlplane/k8s/crds/";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private CrdDocuments() {}

  /** Classpath resource name of the CRD of {@code kind}. */
  public static String resourceName(CrdKind<?, ?> kind) {
    return RESOURCE_DIR + kind.crdName().replaceFirst("^([^.]+)\\.(.*)$", "$2_$1") + ".yaml";
  }

  /** The whole CustomResourceDefinition of {@code kind} as plain maps and lists. */
  public static Map<String, Object> crd(CrdKind<?, ?> kind) {
    String name = resourceName(kind);
    try (InputStream in = CrdDocuments.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("CRD resource missing from the classpath: " + name);
      }
      return YAML.readValue(in, new TypeReference<Map<String, Object>>() {});
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + name, e);
    }
  }

  /** The {@code openAPIV3Schema} of the single version ({@code v1alpha1}) of {@code kind}. */
  public static Map<String, Object> schema(CrdKind<?, ?> kind) {
    return schema(crd(kind));
  }

  /** The {@code openAPIV3Schema} of the single version of a parsed CRD. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> schema(Map<String, Object> crd) {
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    List<Map<String, Object>> versions = (List<Map<String, Object>>) spec.get("versions");
    Map<String, Object> schema = (Map<String, Object>) versions.get(0).get("schema");
    return (Map<String, Object>) schema.get("openAPIV3Schema");
  }
}
