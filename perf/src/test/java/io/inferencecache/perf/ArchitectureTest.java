package io.inferencecache.perf;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The perf module's package rules, on its compiled main classes ({@code target/classes}): every
 * class lives under {@code io.inferencecache.perf} (none in the engine's or another module's
 * packages), and no two of its packages import each other in a circle.
 */
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().importPath(Path.of("target", "classes"));
  }

  @Test
  void everyMainClassLivesUnderThePerfPackage() {
    classes()
        .should()
        .resideInAPackage("io.inferencecache.perf..")
        .as("perf main classes live under io.inferencecache.perf")
        .check(main);
  }

  @Test
  void thePerfPackagesImportEachOtherWithoutACircle() {
    slices()
        .matching("io.inferencecache.(**)")
        .should()
        .beFreeOfCycles()
        .as("no import circle between perf packages")
        .check(main);
  }
}
