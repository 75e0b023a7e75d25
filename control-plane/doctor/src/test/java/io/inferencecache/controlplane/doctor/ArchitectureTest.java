package io.inferencecache.controlplane.doctor;

import io.inferencecache.controlplane.support.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The doctor module's package rules, checked on its compiled main classes: everything under
 * io.inferencecache.controlplane.doctor.
 */
class ArchitectureTest {
  @Test
  void everyMainClassLivesUnderTheModulesOwnPackages() {
    PackageRules.onlyUnder("io.inferencecache.controlplane.doctor..");
  }

  @Test
  void noImportCircleBetweenPackages() {
    PackageRules.noCircles("io.inferencecache.controlplane.(**)");
  }
}
