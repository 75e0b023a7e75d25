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
   * @throws Exception when the model has no tokenizer or tokenization fails
   */
  default PrefixTokens encodeUserTurnPrefix(
      final String modelId, final String text, final int prefixChars) throws Exception {
    throw new UnsupportedOperationException("no tokenizer configured for model " + modelId);
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
