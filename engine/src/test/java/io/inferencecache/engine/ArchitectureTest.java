package io.inferencecache.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The engine's package rules, checked on its main classes (the compiled output of this module). */
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() throws URISyntaxException {
    final Path classes =
        Path.of(CacheIndex.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPath(classes);
  }

  @Test
  void everyMainClassLivesUnderTheEnginePackage() {
    classes().should().resideInAPackage("io.inferencecache.engine..").check(main);
  }

  @Test
  void enginePackagesImportNoCircle() {
    slices().matching("io.inferencecache.(**)").should().beFreeOfCycles().check(main);
  }

  @Test
  void storageInternalsDependOnNoEngineFacadeOrPolicy() {
    noClasses()
        .that()
        .resideInAPackage("io.inferencecache.engine.internal..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.inferencecache.engine", "io.inferencecache.engine.policy..")
        .check(main);
  }

  @Test
  void policyAndFingerprintDependOnNoEngineFacade() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.inferencecache.engine.policy..", "io.inferencecache.engine.fingerprint..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.inferencecache.engine")
        .check(main);
  }
}
