package io.inferencecache.kubelocal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Rewrites CustomResourceDefinition YAML so that kube-apiserver 1.20 accepts it. Used for
 * kube-local only; the shipped YAML is never changed.
 *
 * <p>The one rewrite: every {@code default: ""} is removed, because 1.20 refuses an empty-string
 * default in schemas where current servers take it. On kube-local such a field is therefore absent
 * instead of {@code ""} when the client leaves it out. Documents of any other kind (a
 * kustomization, a namespace) are dropped.
 */
final class CrdsFor120 {

  /** The rewritten CRDs as one multi-document YAML, and their names. */
  record Rewritten(String yaml, List<String> names) {}

  private CrdsFor120() {}

  /**
   * Rewrites the CRDs found in {@code yaml} (any number of documents).
   *
   * @throws IllegalArgumentException if the YAML holds no CustomResourceDefinition
   */
  static Rewritten rewrite(String yaml, String origin) {
    Yaml parser = new Yaml(new SafeConstructor(new LoaderOptions()));
    List<Object> crds = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Object document : parser.loadAll(yaml)) {
      if (document instanceof Map<?, ?> map && "CustomResourceDefinition".equals(map.get("kind"))) {
        stripEmptyStringDefaults(map);
        crds.add(map);
        if (map.get("metadata") instanceof Map<?, ?> metadata
            && metadata.get("name") instanceof String name) {
          names.add(name);
        } else {
          throw new IllegalArgumentException(origin + ": a CustomResourceDefinition has no name");
        }
      }
    }
    if (crds.isEmpty()) {
      throw new IllegalArgumentException(origin + ": no CustomResourceDefinition found");
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    Yaml writer = new Yaml(new Representer(options), options);
    return new Rewritten(writer.dumpAll(crds.iterator()), List.copyOf(names));
  }

  /** Removes {@code default: ""} everywhere below {@code node}; returns how many were removed. */
  static int stripEmptyStringDefaults(Object node) {
    int removed = 0;
    if (node instanceof Map<?, ?> map) {
      for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<?, ?> entry = it.next();
        if ("default".equals(entry.getKey()) && "".equals(entry.getValue())) {
          it.remove();
          removed++;
        } else {
          removed += stripEmptyStringDefaults(entry.getValue());
        }
      }
    } else if (node instanceof List<?> list) {
      for (Object item : list) {
        removed += stripEmptyStringDefaults(item);
      }
    }
    return removed;
  }
}
