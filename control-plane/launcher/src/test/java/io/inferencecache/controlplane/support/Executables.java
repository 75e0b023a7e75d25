package io.inferencecache.controlplane.support;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Programs the integration tests run from the PATH (bin/test installs them). */
public final class Executables {
  private Executables() {}

  /**
   * The executable {@code name} on the PATH.
   *
   * @param debianPackage the package that provides it, named in the failure message
   * @throws AssertionError when it is not installed
   */
  public static Path onPath(final String name, final String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      final Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new AssertionError(
        name
            + " is not on the PATH: run bin/test, which installs what the tests need (or: apt-get install -y "
            + debianPackage
            + ")");
  }
}
