package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.api.PromptTemplateJson;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.validation.TemplateSpecs;
import io.inferencecache.templates.InvalidTemplateException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Builds the one full {@code /prompt-templates} body (version 1) from every PromptTemplate in the
 * cluster: ordered by (namespace, name), each compiled by the {@code templates} rules (one that
 * breaks them is left out; its {@code Ready} condition says so), encoded by {@link
 * PromptTemplateJson#write} with each template's revision, the same codec the server decodes with.
 * Pure.
 */
public final class PromptTemplateBody {
  private PromptTemplateBody() {}

  /** The body for {@code templates}. */
  public static String build(final Collection<PromptTemplate> templates) {
    final List<PromptTemplate> sorted = new ArrayList<>(templates);
    sorted.sort(
        Comparator.comparing((PromptTemplate t) -> t.getMetadata().getNamespace())
            .thenComparing(t -> t.getMetadata().getName()));
    final List<io.inferencecache.templates.PromptTemplate> valid = new ArrayList<>();
    for (final PromptTemplate t : sorted) {
      try {
        valid.add(TemplateSpecs.compile(t));
      } catch (InvalidTemplateException invalid) {
        // left out: the reconciler's Ready=False/InvalidTemplate names the fields
      }
    }
    return PromptTemplateJson.write(valid);
  }
}
