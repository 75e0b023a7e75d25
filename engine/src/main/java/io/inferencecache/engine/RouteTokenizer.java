package io.inferencecache.engine;

/**
 * How {@link LookupRouter} turns a request's prompt text into token ids: supplied by the service,
 * which owns the tokenizers and chat templates. Implementations must be thread-safe; the router
 * bounds how many calls run at once ({@link LookupRouter#MAX_CONCURRENT_TOKENIZE}).
 */
public interface RouteTokenizer {
  /** Whether a tokenizer is loaded for {@code modelId}. */
  boolean supports(String modelId);

  /**
   * Encodes {@code text} as one user turn for {@code modelId}.
   *
   * @throws Exception when the model has no tokenizer or tokenization fails (the router fails open)
   */
  int[] encodeUserTurn(String modelId, String text) throws Exception;
}
