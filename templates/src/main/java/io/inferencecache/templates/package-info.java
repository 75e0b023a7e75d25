/**
 * PromptTemplate: the spec model ({@link io.inferencecache.templates.PromptTemplateSpec}, {@link
 * io.inferencecache.templates.Slot}, {@link io.inferencecache.templates.SlotType}), its validation
 * rules ({@link io.inferencecache.templates.TemplateRules}, every violation naming its field), the
 * revision digest ({@link io.inferencecache.templates.TemplateRevision}), the compiled form ({@link
 * io.inferencecache.templates.PromptTemplate}), the {@code {{.slot}}} renderer ({@link
 * io.inferencecache.templates.TemplateRenderer}), the snapshot store the server renders from
 * ({@link io.inferencecache.templates.TemplateStore}) and the distinct-value sketch of each Stable
 * slot ({@link io.inferencecache.templates.StableSlotSketch}).
 *
 * <p>The server (RenderTemplate, {@code /prompt-templates}) and the operator ({@code
 * status.templateRevision}, the admission webhook) use the same rules and the same digest, so what
 * the controller accepts is what the server accepts and both name the same revision. No gRPC, no
 * Kubernetes and no JSON library here.
 */
package io.inferencecache.templates;
