package io.inferencecache.service.lookup;

import io.inferencecache.engine.RouteRequest;

/** What a parser stored in a {@link RouteRequest}, as values to compare (tests only). */
public final class RouteRequestAccess {
  private RouteRequestAccess() {}

  /** The token ids the parser stored. */
  public static int[] tokenIds(final RouteRequest in) {
    final int[] ids = new int[in.tokenIdCount()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = in.tokenId(i);
    }
    return ids;
  }

  /** The prompt text the parser stored (null when flagged too long). */
  public static String prompt(final RouteRequest in) {
    return in.promptText();
  }

  public static boolean promptTooLong(final RouteRequest in) {
    return in.promptTooLong();
  }

  public static int promptLength(final RouteRequest in) {
    return in.promptLength();
  }
}
