package io.inferencecache.service.lookup;

import java.util.Arrays;

/** Read access to the package-private parts of a {@link LookupInput} (tests only). */
public final class LookupInputAccess {
  private LookupInputAccess() {}

  /** The token ids the parser stored. */
  public static int[] tokenIds(final LookupInput in) {
    return Arrays.copyOf(in.tokenIds, in.tokenIdCount);
  }

  /** The prompt text the parser stored (null when flagged too long). */
  public static String prompt(final LookupInput in) {
    return in.promptTooLong ? null : in.promptString();
  }

  public static boolean promptTooLong(final LookupInput in) {
    return in.promptTooLong;
  }

  public static int promptLength(final LookupInput in) {
    return in.promptLength;
  }
}
