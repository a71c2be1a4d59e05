package io.delaybridge.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's layering, checked by the build: {@code intake -> store -> pump -> delivery}, with {@code admin} and
 * {@code config} beside. Think hard before loosening a rule here: each one keeps a layer replaceable and testable.
 */
class LayeringTest {

    private static final String BASE = "io.delaybridge.bridge";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    @Test
    void theStoreKnowsNothingOfWhoUsesIt() {
        noClasses().that().resideInAPackage(BASE + ".store..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".pump..", BASE + ".delivery..", BASE + ".admin..",
                        BASE + ".config..")
                .check(classes);
    }

    @Test
    void theStoreContractDoesNotDependOnItsRedisImplementation() {
        noClasses().that().resideInAPackage(BASE + ".store")
                .should().dependOnClassesThat().resideInAPackage(BASE + ".store.redis..")
                .check(classes);
    }

    @Test
    void theIntakeDoesNotReachPastTheStore() {
        noClasses().that().resideInAPackage(BASE + ".intake..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".pump..", BASE + ".admin..", BASE + ".config..", BASE + ".store.redis..")
                .check(classes);
    }

    @Test
    void thePumpDoesNotReachBackIntoTheIntake() {
        noClasses().that().resideInAPackage(BASE + ".pump..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".admin..", BASE + ".config..", BASE + ".store.redis..")
                .check(classes);
    }

    @Test
    void deliveryOnlyBuildsAndSendsRecords() {
        noClasses().that().resideInAPackage(BASE + ".delivery..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".pump..", BASE + ".store..", BASE + ".admin..",
                        BASE + ".config..")
                .check(classes);
    }

    @Test
    void releaseAtTheDueTimeKnowsNothingOfThePipeline() {
        noClasses().that().resideInAPackage(BASE + ".release..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".store..", BASE + ".pump..", BASE + ".delivery..",
                        BASE + ".admin..", BASE + ".config..", BASE + ".rules..")
                .check(classes);
    }

    @Test
    void theRulesOnlyWriteToTheIntake() {
        noClasses().that().resideInAPackage(BASE + ".rules..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".store..", BASE + ".pump..", BASE + ".admin..",
                        BASE + ".config..")
                .check(classes);
    }

    @Test
    void theTestingFacilitiesStandApartFromThePipeline() {
        noClasses().that().resideInAPackage(BASE + ".faults..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".intake..", BASE + ".store..", BASE + ".pump..", BASE + ".delivery..",
                        BASE + ".admin..", BASE + ".config..")
                .check(classes);
    }

    @Test
    void componentsTakePlainValuesNotConfigurationClasses() {
        noClasses().that().resideOutsideOfPackage(BASE + ".config..")
                .and().doNotHaveFullyQualifiedName(DelayBridgeApplication.class.getName())
                .and().doNotHaveFullyQualifiedName(DelayBridgeConfiguration.class.getName())
                .and().doNotHaveFullyQualifiedName(BASE + ".RulesPart") // the rules' share of the wiring
                .should().dependOnClassesThat().resideInAPackage(BASE + ".config..")
                .check(classes);
    }
}
