package io.inferencecache.controlplane;

import io.inferencecache.controlplane.cli.InferenceCacheCli;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** {@code java -jar inference-cache.jar COMMAND [FLAGS]}. */
public final class InferenceCacheMain {
  private InferenceCacheMain() {}

  public static void main(final String[] args) {
    // Before anything can load Chronicle: no analytics traffic, ever.
    System.setProperty("chronicle.analytics.disable", "true");
    final int code =
        InferenceCacheCli.run(
            args,
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    System.exit(code);
  }
}
