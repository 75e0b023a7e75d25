package io.inferencecache.controlplane.support;

import io.inferencecache.servelocal.ServeChild;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code serve} child processes of this module's ITs ({@link ServeChild}): the jar this module
 * builds ({@code -Dinferencecache.jar} to override), a small heap and the C1 compiler only, so that
 * several fit on a 2-core machine beside the build.
 */
public final class ServeProcess {
  private static final String JAR =
      System.getProperty("inferencecache.jar", "target/inference-cache.jar");
  private static final List<String> JVM_OPTIONS = List.of("-Xmx384m", "-XX:TieredStopAtLevel=1");

  private ServeProcess() {}

  /** A child (not started) with its config and logs in {@code dir}. */
  public static ServeChild of(final Path dir, final String yaml) {
    return new ServeChild(JAR, JVM_OPTIONS, dir, yaml);
  }
}
