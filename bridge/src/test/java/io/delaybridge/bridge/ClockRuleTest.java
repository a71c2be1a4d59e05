package io.delaybridge.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One clock, checked by the build: every class reads time through an injected {@code time.Time}, so tests step a
 * {@code MockTime} and a fault test can shift the clock of the whole bridge. Only the {@code time} package reads the
 * host's clocks; only the wiring ({@link DelayBridgeApplication}) picks the wall clock it builds its {@code Time} from.
 */
class ClockRuleTest {

    private static final String BASE = "io.delaybridge.bridge";
    private static final String TIME = BASE + ".time..";

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    @Test
    void onlyTheTimePackageReadsTheHostsClocks() {
        noClasses()
                .that()
                .resideOutsideOfPackage(TIME)
                .should()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .because("time is read through an injected io.delaybridge.bridge.time.Time (Time.SYSTEM in production)")
                .check(classes);
    }

    @Test
    void onlyTheWiringPicksAWallClock() {
        noClasses()
                .that()
                .resideOutsideOfPackage(TIME)
                .and()
                .doNotHaveFullyQualifiedName(DelayBridgeApplication.class.getName())
                .should()
                .callMethod(Clock.class, "systemUTC")
                .orShould()
                .callMethod(Clock.class, "systemDefaultZone")
                .orShould()
                .callMethod(Instant.class, "now")
                .orShould()
                .callMethod(LocalDateTime.class, "now")
                .orShould()
                .callMethod(OffsetDateTime.class, "now")
                .orShould()
                .callMethod(ZonedDateTime.class, "now")
                .because("components take the wall clock from the Time (or its Clock view) they are given")
                .check(classes);
    }
}
