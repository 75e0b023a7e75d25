package io.inferencecache.perf;

import java.util.HashMap;
import java.util.Map;

/** The {@code --name value} / {@code --name=value} flags of the perf command-line tools. */
public final class ToolFlags {
  private ToolFlags() {}

  /**
   * Parses {@code args} from index {@code from} into name → value.
   *
   * @throws IllegalArgumentException for an argument that is not a flag
   */
  public static Map<String, String> parse(final String[] args, final int from) {
    final Map<String, String> m = new HashMap<>();
    for (int i = from; i < args.length; i++) {
      final String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + a);
      }
      final int eq = a.indexOf('=');
      if (eq > 0) {
        m.put(a.substring(2, eq), a.substring(eq + 1));
      } else {
        m.put(a.substring(2), args[++i]);
      }
    }
    return m;
  }
}
