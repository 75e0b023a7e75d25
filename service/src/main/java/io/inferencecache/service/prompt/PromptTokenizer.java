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
