package io.inferencecache.controlplane.k8s.validation;

import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.templates.InvalidTemplateException;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import java.util.ArrayList;
import java.util.List;

/**
 * A PromptTemplate custom resource as the {@code templates} module sees it: its spec as a {@link
 * PromptTemplateSpec} and the compiled template, checked by the same {@link
 * io.inferencecache.templates.TemplateRules} the server applies (so the webhook, the controller's
 * {@code Ready} condition and the server refuse the same specs, naming the same fields).
 */
public final class TemplateSpecs {
  private TemplateSpecs() {}

  /**
   * The templates-module spec of {@code spec} (null reads as empty; an unknown slot type as null,
   * which the rules refuse).
   */
  public static PromptTemplateSpec of(final PromptTemplate.Spec spec) {
    if (spec == null) {
      return new PromptTemplateSpec("", "", List.of());
    }
    final List<Slot> slots = new ArrayList<>();
    if (spec.slots != null) {
      for (final PromptTemplate.Slot s : spec.slots) {
        if (s == null) {
          slots.add(new Slot("", null, false));
          continue;
        }
        slots.add(
            new Slot(
                s.name,
                s.type == null
                    ? null
                    : s.type == PromptTemplate.SlotType.STABLE ? SlotType.STABLE : SlotType.MUTABLE,
                Boolean.TRUE.equals(s.required),
                s.description));
      }
    }
    return new PromptTemplateSpec(spec.modelId, spec.body, slots);
  }

  /**
   * {@code cr} compiled, as the server would hold it.
   *
   * @throws InvalidTemplateException naming each field ({@code spec.slots[2].name}, {@code
   *     spec.body}, {@code metadata.name}) that breaks a rule
   */
  public static io.inferencecache.templates.PromptTemplate compile(final PromptTemplate cr)
      throws InvalidTemplateException {
    return io.inferencecache.templates.PromptTemplate.compile(
        cr.getMetadata().getNamespace(), cr.getMetadata().getName(), of(cr.getSpec()));
  }
}
