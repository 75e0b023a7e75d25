package io.inferencecache.controlplane.webhook;

/**
 * A request body that is not a usable {@code admission.k8s.io/v1} AdmissionReview. The server
 * answers it with HTTP 400 and the message; nothing else is done with the body.
 */
public final class AdmissionReviewException extends Exception {
  private static final long serialVersionUID = 1L;

  public AdmissionReviewException(final String message) {
    super(message);
  }
}
