package io.inferencecache.templates;

import java.util.List;

/**
 * A PromptTemplate's spec, as the custom resource and the {@code /prompt-templates} body carry it.
 *
 * @param modelId the model whose tokenizer lines the stable prefix up with the engine's block
 *     hashes ({@code ""}: none; a RenderTemplate request's {@code model_id} wins over it)
 * @param body the template text with {@code {{.slot}}} placeholders
 * @param slots the declared slots, in declaration order
 */
public record PromptTemplateSpec(String modelId, String body, List<Slot> slots) {
  /** Null text becomes {@code ""} and a null list an empty one; the list is copied. */
  public PromptTemplateSpec {
    modelId = modelId == null ? "" : modelId;
    body = body == null ? "" : body;
    slots = slots == null ? List.of() : List.copyOf(slots);
  }
}
