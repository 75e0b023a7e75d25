package io.inferencecache.templates;

/** What {@link TemplateRenderer#render} answers: a prompt, or why there is none. */
public sealed interface RenderResult permits RenderResult.Rendered, RenderResult.Failure {

  /**
   * A rendered prompt.
   *
   * @param utf8 the prompt in UTF-8, exactly sized (the caller may wrap it without copying; it is
   *     never written again)
   * @param chars the prompt's length in UTF-16 characters (its {@link String} length)
   * @param stablePrefixBytes where the stable prefix ends in {@code utf8}: the offset of the first
   *     Mutable placeholder's value, or the whole prompt when the body has no Mutable placeholder
   * @param stablePrefixChars the same offset in UTF-16 characters of the prompt as a {@link String}
   */
  record Rendered(byte[] utf8, int chars, int stablePrefixBytes, int stablePrefixChars)
      implements RenderResult {}

  /**
   * No prompt: a RENDER_ERROR.
   *
   * @param slot the slot or variable at fault ({@code ""} when the whole prompt is, e.g. too large)
   * @param message a sentence naming the template and the slot
   */
  record Failure(String slot, String message) implements RenderResult {}
}
