package io.inferencecache.service.lookup;

/**
 * Turns a prompt into token ids the way the model's serving engine would: the text wrapped as a
 * single {@code user} message, the model's chat template applied with the generation prompt, then
 * tokenized. Implementations must be thread-safe.
 */
public interface PromptTokenizer {
  /** Whether a tokenizer is loaded for {@code modelId}. */
  boolean supports(String modelId);

  /**
   * Encodes {@code text} as one user turn for {@code modelId}.
   *
   * @throws Exception when the model has no tokenizer or tokenization fails (the caller fails open)
   */
  int[] encodeUserTurn(String modelId, String text) throws Exception;

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
