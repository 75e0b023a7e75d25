package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /validate-inferencecache-io-v1alpha1-pdtopology}: the rules of {@link PdTopologyRules}
 * (pool names unique within and across roles, non-empty {@code matchLabels}, an {@code
 * acceleratorType} that names an entry of {@code acceleratorTypes}, the {@code transport} enum,
 * numbers in range), each refusal naming its field.
 */
public final class PDTopologyValidator extends CustomResourceValidator<PDTopology> {
  public PDTopologyValidator() {
    super(PDTopology.CRD);
  }

  @Override
  List<FieldError> objectErrors(final PDTopology topology, final ObjectNode raw) {
    final JsonNode t = raw.path("spec").path("transport");
    final String transport = t.isMissingNode() || t.isNull() ? null : t.asText();
    final List<FieldError> out = new ArrayList<>();
    for (final PdTopologyRules.Violation v : PdTopologyRules.check(topology.getSpec(), transport)) {
      out.add(
          switch (v.kind()) {
            case REQUIRED -> FieldError.required(v.field(), v.detail());
            case NOT_SUPPORTED -> FieldError.notSupported(v.field(), v.value(), v.detail());
            case DUPLICATE -> FieldError.duplicate(v.field(), v.value(), v.detail());
            case INVALID -> FieldError.invalid(v.field(), v.value(), v.detail());
          });
    }
    return out;
  }
}
