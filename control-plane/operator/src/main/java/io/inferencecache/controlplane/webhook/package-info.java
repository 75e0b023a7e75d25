/**
 * The admission webhooks served by the {@code controller} command on {@code :9443}: the
 * AdmissionReview v1 codec and HTTPS server ({@link
 * io.inferencecache.controlplane.webhook.WebhookServer}), the CacheBackend defaulter and the
 * CacheBackend / CachePolicy / CacheTenant / PDTopology / PromptTemplate validators (failurePolicy
 * Fail), and the Pod mutating webhook that attaches the {@code kvevent-subscriber} sidecar to
 * engine pods (failurePolicy Ignore). {@link io.inferencecache.controlplane.webhook.Webhooks} lists
 * the paths and wires them.
 */
package io.inferencecache.controlplane.webhook;
