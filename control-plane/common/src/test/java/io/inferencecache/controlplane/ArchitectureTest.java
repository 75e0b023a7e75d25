package io.inferencecache.controlplane;

import io.inferencecache.controlplane.support.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The common module's package rules, checked on its compiled main classes: the typed model and CEL
 * rules (k8s), the HTTP bodies (api) and the metric exposition (metrics).
 */
class ArchitectureTest {
  @Test
  void everyMainClassLivesUnderTheModulesOwnPackages() {
    PackageRules.onlyUnder(
        "io.inferencecache.controlplane.k8s..",
        "io.inferencecache.controlplane.api..",
        "io.inferencecache.controlplane.metrics..");
  }

  @Test
  void noImportCircleBetweenPackages() {
    PackageRules.noCircles("io.inferencecache.controlplane.(**)");
  }
}
