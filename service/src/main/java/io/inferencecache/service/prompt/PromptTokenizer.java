package io.inferencecache.service.prompt;

import io.inferencecache.engine.RouteTokenizer;

/**
 * Turns a prompt into token ids the way the model's serving engine would: the text wrapped as a
 * single {@code user} message, the model's chat template applied with the generation prompt, then
 * tokenized ({@link HuggingFaceTokenizers}). The engine's {@link
 * io.inferencecache.engine.LookupRouter} calls it when a LookupRoute carries prompt_text only.
 * Implementations must be thread-safe.
 */
public interface PromptTokenizer extends RouteTokenizer {
  /**
   * The tokens of a user turn and how many of the leading ones belong to a prefix of its text.
   *
   * @param ids exactly what {@link #encodeUserTurn} gives for the whole text
   * @param prefixTokens how many leading {@code ids} the prefix alone tokenizes to as well
   */
  record PrefixTokens(int[] ids, int prefixTokens) {}

  /**
   * Encodes {@code text} as {@link #encodeUserTurn} does, and counts the leading tokens that lie
   * wholly inside {@code text[0, prefixChars)}: those the prefix, encoded the same way on its own,
   * shares with the whole (the longest common run), so their block hashes are a prefix of the whole
   * prompt's chain and do not depend on the text after the prefix.
   *
   * <p>This general form encodes the prefix as a user turn of its own; an implementation that can
   * place the cut inside the rendered turn (before the chat template's closing tokens) should
   * override it, as {@link HuggingFaceTokenizers} does. With the whole text as prefix it counts the
   * turn's closing tokens too (the chain is still the whole prompt's).
   *
   * @throws Exception when the model has no tokenizer or tokenization fails
   */
  default PrefixTokens encodeUserTurnPrefix(
      final String modelId, final String text, final int prefixChars) throws Exception {
    final int[] ids = encodeUserTurn(modelId, text);
    final int chars = Math.max(0, Math.min(prefixChars, text.length()));
    if (chars == 0) {
      return new PrefixTokens(ids, 0);
    }
    final int[] prefix = encodeUserTurn(modelId, text.substring(0, chars));
    return new PrefixTokens(ids, commonRun(ids, prefix));
  }

  /** How many leading ids {@code a} and {@code b} share. */
  static int commonRun(final int[] a, final int[] b) {
    final int n = Math.min(a.length, b.length);
    int common = 0;
    while (common < n && a[common] == b[common]) {
      common++;
    }
    return common;
  }

  /** No tokenizers: every prompt_text lookup fails open to NO_HINT. */
  PromptTokenizer NONE =
      new PromptTokenizer() {
        @Override
        public boolean supports(final String modelId) {
          return false;
        }

        @Override
        public int[] encodeUserTurn(final String modelId, final String text) throws Exception {
          throw new UnsupportedOperationException("no tokenizer configured for model " + modelId);
        }
      };
}
