package io.delaybridge.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The pipeline's layering as an allow-list, checked by the build (after apache/kafka's
 * {@code checkstyle/import-control.xml}): for each package of the service, what it may use. Anything not listed is
 * refused, so a new dependency is a decision made here, in review, not a drift found later. The record's way is
 * {@code intake -> store -> pump -> delivery} (an express record's {@code intake -> express -> delivery}), with
 * {@code admin}, {@code config} and {@code rules} beside; the root package is the one place where objects are wired
 * and may use everything.
 *
 * <p>THINK HARD ABOUT THE LAYERING BEFORE WIDENING A LIST: each entry keeps a layer replaceable and testable.
 */
class LayeringTest {

    private static final String BASE = "io.delaybridge.bridge";

    /**
     * What every package may use: the JDK, logging, metrics, the record formats, the bridge's one clock (every class
     * that reads time is given a {@code time.Time}; {@link ClockRuleTest} checks that none reads another), and the
     * one-line form of a failure for logs ({@code errors}).
     */
    private static final List<String> EVERYWHERE = List.of(
            "java..",
            "",
            "org.slf4j..",
            "com.codahale.metrics..",
            "io.delaybridge.schemas..",
            BASE + ".time",
            BASE + ".errors");

    /** Kafka's client library: the intake consumes, delivery produces, config builds the clients, rules stream. */
    private static final String KAFKA = "org.apache.kafka..";

    /** Dropwizard's lifecycle interface, for the components that run threads. */
    private static final String MANAGED = "io.dropwizard.lifecycle..";

    /** Each package of the service (relative to {@value #BASE}) and what it may use beyond {@link #EVERYWHERE}. */
    private static final List<Layer> LAYERS = List.of(
            // the clock seam: uses nothing of the bridge
            layer("time", ours()),
            // how a failure reads in a log line: uses nothing of the bridge
            layer("errors", ours()),
            layer("store", ours()),
            layer("store.redis", ours("store"), "io.lettuce..", "reactor.core..", "javax.net.ssl..", "javax.crypto.."),
            // named places in the record's way (Checkpoint) and who is told of them: the service tells no one
            layer("probe", ours()),
            // sending at the due time by Redis' clock: knows nothing of the pipeline
            layer("release", ours()),
            layer("delivery", ours("release"), KAFKA),
            // the intake's way into the sending layer: the express path sends through Delivery at the due time
            // (release), parks in the store what cannot go now, and relays what exactly once must hear of the intake
            layer("express", ours("store", "delivery", "release")),
            // the one way back into the intake log: reads records by position (OffsetReader, FetchPlan), translates
            // them (RecordTranslator) and deadletters refusals (RefusedRecords), for intake, thaw and admin alike
            layer("log", ours("store", "delivery"), KAFKA),
            // express: the intake hands express records over (ExpressPath) and reaches delivery only through it
            // (IntakeDelivery); delivery itself for two things: ExpressOffsets implements its TransactionOffsets (the
            // intake's commit rule, carried in shard transactions) and IntakeMetrics marks its shared DeadletterMeters
            layer("intake", ours("store", "log", "express", "delivery", "probe"), MANAGED, KAFKA),
            // the pump sends through Delivery; the deadletter records it hands over are kafka-clients ProducerRecords
            layer("pump", ours("store", "delivery", "probe", "release"), MANAGED, "org.apache.kafka.clients.producer"),
            // the far tier's thaw: reads far records back through log under the pump's epochs, translates and
            // deadletters them as the intake does, stores them through the store's far tier (the intake's writes)
            layer("thaw", ours("store", "log", "delivery"), MANAGED, KAFKA),
            layer("rules", ours("delivery"), MANAGED, KAFKA, "com.fasterxml.jackson.."),
            // health checks and the group view read the broker (admin client, group offsets), the rules' report the
            // state of their stream threads; the far tier's views read far records back from the intake by position
            // (log's OffsetReader: its ConsumerRecords and KafkaExceptions) and translate them as the intake did
            layer(
                    "admin",
                    ours("store", "log", "intake", "pump", "delivery", "rules"),
                    "io.dropwizard.servlets.tasks..",
                    "io.prometheus..",
                    "jakarta.servlet..",
                    "org.apache.kafka.clients.admin..",
                    "org.apache.kafka.clients.consumer",
                    "org.apache.kafka.common",
                    "org.apache.kafka.streams"),
            layer(
                    "admin.api",
                    ours("admin", "store", "delivery"),
                    "jakarta.ws.rs..",
                    "jakarta.servlet..",
                    "org.apache.kafka.common.header.."),
            layer(
                    "config",
                    ours("store", "store.redis", "intake", "pump", "delivery", "rules", "admin.api"),
                    KAFKA,
                    "com.fasterxml.jackson..",
                    "io.dropwizard.util..",
                    "io.dropwizard.validation..",
                    "jakarta.validation.."));

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    @TestFactory
    Stream<DynamicTest> eachPackageUsesOnlyWhatItsLayerAllows() {
        return LAYERS.stream()
                .map(layer -> DynamicTest.dynamicTest(
                        layer.name,
                        () -> classes()
                                .that()
                                .resideInAPackage(layer.packageName())
                                .should()
                                .onlyDependOnClassesThat()
                                .resideInAnyPackage(layer.allowed())
                                .because("the allow-list in LayeringTest says what " + layer.name + " may use")
                                .check(classes)));
    }

    @Test
    void everyPackageHasALayer() {
        Set<String> declared = LAYERS.stream().map(Layer::packageName).collect(Collectors.toCollection(TreeSet::new));
        declared.add(BASE);
        Set<String> found = classes.stream()
                .map(JavaClass::getPackageName)
                .filter(name -> name.startsWith(BASE))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(declared, found, "each package of the service needs its line in LayeringTest.LAYERS");
    }

    @Test
    void noCyclesBetweenPackages() {
        slices().matching(BASE + ".(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void lettuceStaysInTheRedisStore() {
        noClasses()
                .that()
                .resideOutsideOfPackage(BASE + ".store.redis")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.lettuce..")
                .check(classes);
    }

    @Test
    void componentsTakePlainValuesNotConfigurationClasses() {
        noClasses()
                .that()
                .resideOutsideOfPackage(BASE + ".config..")
                .and()
                .resideOutsideOfPackage(BASE) // the root package is the wiring: its parts read the configuration
                .should()
                .dependOnClassesThat()
                .resideInAPackage(BASE + ".config..")
                .check(classes);
    }

    private record Layer(String name, String[] allowed) {
        String packageName() {
            return BASE + "." + name;
        }
    }

    /** Packages of the service, relative to {@value #BASE}. */
    private static List<String> ours(String... names) {
        return Stream.of(names).map(name -> BASE + "." + name).toList();
    }

    /** A package (relative to the base) that may use itself, {@link #EVERYWHERE}, {@code ours} and {@code libraries}. */
    private static Layer layer(String name, List<String> ours, String... libraries) {
        List<String> allowed = new ArrayList<>(EVERYWHERE);
        allowed.add(BASE + "." + name);
        allowed.addAll(ours);
        allowed.addAll(List.of(libraries));
        return new Layer(name, allowed.toArray(String[]::new));
    }
}
