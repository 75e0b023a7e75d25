package io.inferencecache.controlplane.support;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;

/**
 * The package rules every control-plane module's ArchitectureTest checks on the module's own
 * compiled main classes ({@code target/classes} of the module the test runs in).
 */
public final class PackageRules {
  private PackageRules() {}

  private static JavaClasses mainClasses() {
    return new ClassFileImporter().importPath(Path.of("target", "classes"));
  }

  /** Fails when a main class lives outside {@code packages} (ArchUnit package patterns). */
  public static void onlyUnder(final String... packages) {
    classes().should().resideInAnyPackage(packages).check(mainClasses());
  }

  /** Fails on an import circle between the slices {@code pattern} cuts the classes into. */
  public static void noCircles(final String pattern) {
    slices().matching(pattern).should().beFreeOfCycles().check(mainClasses());
  }
}
