package io.inferencecache.service.prompt;

/**
 * A chat template could not be rendered: a fatal template error, {@code raise_exception(...)}, or a
 * render bound of {@link ChatTemplate} exceeded. The lookup fails open.
 */
public final class ChatTemplateException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A failure with a message naming the problem. */
  public ChatTemplateException(final String message) {
    super(message);
  }

  /** A failure caused by a lower-level error. */
  public ChatTemplateException(final String message, final Throwable cause) {
    super(message, cause);
  }
}
