package io.inferencecache.subscriber;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module's package rules, checked on its compiled main classes: every class lives under {@code
 * io.inferencecache.subscriber}, and no two of its packages import each other in a circle.
 */
class ArchitectureTest {
  private static final String ROOT = "io.inferencecache.subscriber";
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().importPath(Path.of("target", "classes"));
  }

  @Test
  void mainClassesLiveUnderTheModulesPackageRoot() {
    classes().should().resideInAPackage(ROOT + "..").check(main);
  }

  @Test
  void packagesAreFreeOfImportCircles() {
    slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(main);
  }
}
