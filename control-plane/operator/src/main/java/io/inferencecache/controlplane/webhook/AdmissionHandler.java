package io.inferencecache.controlplane.webhook;

/** One webhook path: turns a decoded request into a verdict. Implementations are thread-safe. */
@FunctionalInterface
public interface AdmissionHandler {
  /**
   * Judges {@code request}. Expected refusals are responses, not exceptions; an exception is
   * answered by the server as an internal error (500) for this request only.
   */
  AdmissionResponse handle(AdmissionRequest request);
}
