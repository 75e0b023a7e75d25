package io.inferencecache.controlplane.cli;

import io.inferencecache.controlplane.support.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The launcher module's package rules, checked on its compiled main classes: the entry point
 * (io.inferencecache.controlplane, exactly), the commands (cli) and the client connection (client).
 */
class ArchitectureTest {
  @Test
  void everyMainClassLivesUnderTheModulesOwnPackages() {
    PackageRules.onlyUnder(
        "io.inferencecache.controlplane",
        "io.inferencecache.controlplane.cli..",
        "io.inferencecache.controlplane.client..");
  }

  @Test
  void noImportCircleBetweenPackages() {
    PackageRules.noCircles("io.inferencecache.controlplane.(**)");
  }
}
