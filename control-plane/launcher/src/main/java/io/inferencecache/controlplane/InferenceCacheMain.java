package io.inferencecache.controlplane;

import io.inferencecache.controlplane.cli.InferenceCacheCli;
import io.inferencecache.controlplane.server.core.LogConfigurer;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * {@code java -jar inference-cache.jar COMMAND [FLAGS]}. Standard output carries each command's
 * output only: logging goes to standard error from the first line ({@link LogConfigurer#console}).
 */
public final class InferenceCacheMain {
  private InferenceCacheMain() {}

  public static void main(final String[] args) {
    // Before anything can load Chronicle: no analytics traffic, ever.
    System.setProperty("chronicle.analytics.disable", "true");
    // Before anything can log (Netty, the Kubernetes client): standard error, warn and above.
    LogConfigurer.console(LogConfigurer.CONSOLE_DEFAULT_LEVEL);
    final int code =
        InferenceCacheCli.run(
            args,
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    System.exit(code);
  }
}
