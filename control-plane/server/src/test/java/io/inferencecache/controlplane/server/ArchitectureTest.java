package io.inferencecache.controlplane.server;

import io.inferencecache.controlplane.support.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The server module's package rules, checked on its compiled main classes: everything under
 * io.inferencecache.controlplane.server.
 */
class ArchitectureTest {
  @Test
  void everyMainClassLivesUnderTheModulesOwnPackages() {
    PackageRules.onlyUnder("io.inferencecache.controlplane.server..");
  }

  @Test
  void noImportCircleBetweenPackages() {
    PackageRules.noCircles("io.inferencecache.controlplane.server.(**)");
  }
}
