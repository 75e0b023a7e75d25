package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.support.PackageRules;
import org.junit.jupiter.api.Test;

/**
 * The operator module's package rules, checked on its compiled main classes: the reconcilers
 * (controller..), the admission webhooks (webhook) and the HTTPS listener setup both use (https).
 */
class ArchitectureTest {
  @Test
  void everyMainClassLivesUnderTheModulesOwnPackages() {
    PackageRules.onlyUnder(
        "io.inferencecache.controlplane.controller..",
        "io.inferencecache.controlplane.https..",
        "io.inferencecache.controlplane.webhook..");
  }

  /**
   * Every operator package is its own slice: the controller, its backend reconciler, the helpers
   * both share (status, metrics, bridge) and the webhooks; none may import its way back in a
   * circle.
   */
  @Test
  void noImportCircleBetweenPackages() {
    PackageRules.noCircles("io.inferencecache.controlplane.(**)");
  }
}
