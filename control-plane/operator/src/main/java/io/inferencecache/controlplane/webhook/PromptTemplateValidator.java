package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.validation.TemplateSpecs;
import io.inferencecache.templates.TemplateRules;
import io.inferencecache.templates.TemplateViolation;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /validate-inferencecache-io-v1alpha1-prompttemplate}: the {@code templates} module's
 * rules, the ones the server applies to {@code /prompt-templates} (slot names and types, body
 * placeholders that name declared slots, Stable slots before the first Mutable one, bounds), each
 * refusal naming its field ({@code spec.slots[2].name}, {@code spec.body}). A slot type the typed
 * model cannot hold is refused as {@code Unsupported value}.
 */
public final class PromptTemplateValidator extends CustomResourceValidator<PromptTemplate> {
  public PromptTemplateValidator() {
    super(PromptTemplate.CRD);
  }

  @Override
  List<FieldError> objectErrors(final PromptTemplate template, final ObjectNode raw) {
    final List<FieldError> out = new ArrayList<>();
    final JsonNode slots = raw.path("spec").path("slots");
    final List<String> unsupported = new ArrayList<>();
    for (int i = 0; i < slots.size(); i++) {
      final JsonNode type = slots.get(i).path("type");
      if (type.isTextual() && !"Stable".equals(type.asText()) && !"Mutable".equals(type.asText())) {
        final String field = "spec.slots[" + i + "].type";
        unsupported.add(field);
        out.add(
            FieldError.notSupported(
                field, type.asText(), "supported values: \"Stable\", \"Mutable\""));
      }
    }
    for (final TemplateViolation v : TemplateRules.validate(TemplateSpecs.of(template.getSpec()))) {
      if (!unsupported.contains(v.field())) {
        out.add(FieldError.invalid(v.field(), value(raw, v.field()), v.message()));
      }
    }
    return out;
  }

  /** The refused value: a slot's name or type, else a short form of the field's text. */
  private static String value(final ObjectNode raw, final String field) {
    JsonNode n = raw;
    for (final String part : field.split("\\.")) {
      final int b = part.indexOf('[');
      if (b < 0) {
        n = n.path(part);
      } else {
        n =
            n.path(part.substring(0, b))
                .path(Integer.parseInt(part.substring(b + 1, part.length() - 1)));
      }
    }
    if (n.isMissingNode() || n.isNull()) {
      return "";
    }
    final String text = n.isTextual() ? n.asText() : n.toString();
    return text.length() > 64 ? text.substring(0, 61) + "..." : text;
  }
}
