package io.inferencecache.service.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PromptTokenizerTest {
  /** One token per character, wrapped in a turn marker (9) at each end, like a chat template. */
  private static final PromptTokenizer PER_CHAR =
      new PromptTokenizer() {
        @Override
        public boolean supports(final String modelId) {
          return true;
        }

        @Override
        public int[] encodeUserTurn(final String modelId, final String text) {
          final int[] ids = new int[text.length() + 2];
          ids[0] = 9;
          for (int i = 0; i < text.length(); i++) {
            ids[i + 1] = text.charAt(i);
          }
          ids[ids.length - 1] = 9;
          return ids;
        }
      };

  @Test
  void theGeneralPrefixCountsTheLeadingTokensTheWholeTurnSharesWithThePrefixAlone()
      throws Exception {
    final PromptTokenizer.PrefixTokens t = PER_CHAR.encodeUserTurnPrefix("m", "stable|mutable", 7);
    assertThat(t.ids()).isEqualTo(PER_CHAR.encodeUserTurn("m", "stable|mutable"));
    assertThat(t.prefixTokens()).isEqualTo(8); // the opening marker and "stable|"
  }

  @Test
  void anEmptyOrOutOfRangePrefixIsClamped() throws Exception {
    assertThat(PER_CHAR.encodeUserTurnPrefix("m", "abc", 0).prefixTokens()).isZero();
    // the whole text: the general form cannot tell the closing marker from the text, so it counts
    assertThat(PER_CHAR.encodeUserTurnPrefix("m", "abc", 99).prefixTokens()).isEqualTo(5);
  }

  @Test
  void withoutATokenizerThePrefixFailsAsTheTurnDoes() {
    assertThatThrownBy(() -> PromptTokenizer.NONE.encodeUserTurnPrefix("m", "abc", 2))
        .hasMessageContaining("no tokenizer configured for model m");
  }
}
