package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

/**
 * Request-side tokenization for LookupRoute ({@code token_ids} / {@code prompt_text}); flags {@code
 * --engine-block-size} (non-positive values ignored) and {@code --tokenizer-models-dir} override.
 */
public final class EngineSettings {
  public static final int BLOCK_SIZE_DEFAULT = 16;

  private int blockSize = BLOCK_SIZE_DEFAULT;
  @NotNull private String tokenizerModelsDir = "";

  @JsonProperty
  public int getBlockSize() {
    return blockSize;
  }

  /** Non-positive values are ignored (the default stays), as upstream's flag. */
  @JsonProperty
  public void setBlockSize(final int v) {
    if (v > 0) {
      this.blockSize = v;
    }
  }

  @JsonProperty
  public String getTokenizerModelsDir() {
    return tokenizerModelsDir;
  }

  @JsonProperty
  public void setTokenizerModelsDir(final String v) {
    this.tokenizerModelsDir = v;
  }
}
