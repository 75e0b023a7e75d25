package io.inferencecache.controlplane.controller.routing;

import io.inferencecache.controlplane.controller.backend.Conditions;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.controller.status.StatusWriter;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.validation.TemplateSpecs;
import io.inferencecache.templates.InvalidTemplateException;
import io.inferencecache.templates.TemplateViolation;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.function.BooleanSupplier;

/**
 * Reconciles one PromptTemplate: compiled by the {@code templates} rules, it gets {@code
 * status.templateRevision} (the {@link io.inferencecache.templates.TemplateRevision} of its spec,
 * the value the server answers as {@code template_revision}) and {@code Ready=True/TemplateValid};
 * a spec that breaks a rule gets {@code Ready=False/InvalidTemplate} naming every field and no
 * revision (it is left out of the push, so the server does not hold it either). {@code
 * observedGeneration} is the spec's generation. Then every template is pushed.
 */
final class PromptTemplateReconciler
    extends ReadyReconciler<PromptTemplate, PromptTemplate.Status> {
  /** Reason of a template the rules accept. */
  static final String VALID = "TemplateValid";

  /** Reason of a template that breaks a rule. */
  static final String INVALID = "InvalidTemplate";

  PromptTemplateReconciler(
      final io.kubernetes.client.informer.cache.Lister<PromptTemplate> templates,
      final StatusWriter writer,
      final EventRecorder events,
      final SetPush push,
      final ControllerMetrics.Reconciles metrics,
      final BooleanSupplier leader,
      final Clock clock) {
    super(
        PromptTemplate.CRD,
        PromptTemplate.Status.class,
        templates,
        writer,
        events,
        push,
        metrics,
        leader,
        clock);
  }

  @Override
  PromptTemplate.Status status(
      final PromptTemplate cr, final PromptTemplate.Status old, final OffsetDateTime now) {
    return verdict(cr, old, now);
  }

  /** The status of {@code cr}; pure. */
  static PromptTemplate.Status verdict(
      final PromptTemplate cr, final PromptTemplate.Status old, final OffsetDateTime now) {
    final PromptTemplate.Status st = new PromptTemplate.Status();
    final long generation = cr.generation();
    st.observedGeneration = generation;
    st.conditions = ReadyConditions.copy(old == null ? null : old.conditions);
    try {
      final io.inferencecache.templates.PromptTemplate t = TemplateSpecs.compile(cr);
      st.templateRevision = t.revision();
      final int slots = t.spec().slots().size();
      st.conditions =
          Conditions.set(
              st.conditions,
              READY,
              Conditions.TRUE,
              VALID,
              "revision "
                  + t.revision()
                  + ", "
                  + slots
                  + (slots == 1 ? " slot" : " slots")
                  + (t.spec().modelId().isEmpty() ? "" : ", model " + t.spec().modelId()),
              generation,
              now);
    } catch (InvalidTemplateException e) {
      final StringBuilder m = new StringBuilder("not pushed to the server: ");
      boolean first = true;
      for (final TemplateViolation v : e.violations()) {
        m.append(first ? "" : "; ").append(v);
        first = false;
      }
      st.conditions =
          Conditions.set(
              st.conditions, READY, Conditions.FALSE, INVALID, m.toString(), generation, now);
    }
    return st;
  }
}
