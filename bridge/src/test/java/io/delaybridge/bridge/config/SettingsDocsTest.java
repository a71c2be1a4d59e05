package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;

/**
 * The {@link Setting} declarations are the one source of each setting's name, default, bounds and description:
 * docs/configuration.md's tables are generated from them, and the shipped config.yml must carry their defaults. This
 * test fails when the docs or config.yml disagree with the code. To rewrite the tables after changing a declaration:
 * {@code ./mvnw -B -ntp -pl bridge -am test -Dtest=SettingsDocsTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsettings.write=true}.
 */
class SettingsDocsTest {

    private static final Path DOCS = Path.of("../docs/configuration.md");
    private static final Path SHIPPED = Path.of("config.yml");
    private static final Pattern BLOCK =
            Pattern.compile("(<!-- settings: (\\S+) -->\\n)(.*?)(<!-- end of settings -->)", Pattern.DOTALL);
    private static final Pattern ENVIRONMENT = Pattern.compile("\\$\\{([A-Z0-9_]+):-([^}]*)}");

    /** Each section of the file, the factory that declares its settings, and where the shipped file holds it. */
    private record Section(String name, Class<?> factory, Function<DelayBridgeConfiguration, Object> shipped) {}

    private static final List<Section> SECTIONS = List.of(
            new Section("kafka", KafkaFactory.class, DelayBridgeConfiguration::getKafka),
            new Section("redis", RedisFactory.class, DelayBridgeConfiguration::getRedis),
            new Section("redis.tls", RedisTlsFactory.class, c -> c.getRedis().getTls()),
            new Section("intake", IntakeFactory.class, DelayBridgeConfiguration::getIntake),
            new Section("pump", PumpFactory.class, DelayBridgeConfiguration::getPump),
            new Section(
                    "pump.rateLimits", RateLimitsFactory.class, c -> c.getPump().getRateLimits()),
            new Section("delivery", DeliveryFactory.class, DelayBridgeConfiguration::getDelivery),
            new Section("rules[]", RuleFactory.class, c -> null),
            new Section("ruleEngine", RuleEngineFactory.class, DelayBridgeConfiguration::getRuleEngine),
            new Section("api", ApiFactory.class, DelayBridgeConfiguration::getApi));

    /** Properties that are not settings of their own: a nested section has its own table. */
    private static final Set<String> NESTED = Set.of("pump.rateLimits", "redis.tls");

    @Test
    void theDocsTablesAreTheDeclarations() throws IOException {
        String docs = Files.readString(DOCS);
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("environment", environmentTable());
        for (Section section : SECTIONS) {
            expected.put(section.name(), table(section));
        }
        Matcher blocks = BLOCK.matcher(docs);
        StringBuilder written = new StringBuilder();
        Set<String> found = new TreeSet<>();
        List<String> stale = new ArrayList<>();
        while (blocks.find()) {
            String name = blocks.group(2);
            String table = expected.get(name);
            assertTrue(
                    table != null, "docs/configuration.md has a settings block for " + name + ", which is no section");
            found.add(name);
            if (!blocks.group(3).equals(table)) {
                stale.add(name);
            }
            blocks.appendReplacement(written, Matcher.quoteReplacement(blocks.group(1) + table + blocks.group(4)));
        }
        blocks.appendTail(written);
        assertEquals(
                new TreeSet<>(expected.keySet()),
                found,
                "docs/configuration.md needs one <!-- settings: NAME --> ... <!-- end of settings --> block per section");
        if (Boolean.getBoolean("settings.write")) {
            Files.writeString(DOCS, written.toString());
        } else {
            assertEquals(
                    List.of(),
                    stale,
                    "docs/configuration.md's tables differ from the @Setting declarations: "
                            + "run this test with -Dsettings.write=true and commit the result");
        }
    }

    @Test
    void everyPropertyOfAFactoryIsADeclaredSetting() {
        ObjectMapper mapper = Jackson.newObjectMapper();
        for (Section section : SECTIONS) {
            Set<String> properties = mapper
                    .getDeserializationConfig()
                    .introspect(mapper.constructType(section.factory()))
                    .findProperties()
                    .stream()
                    .filter(BeanPropertyDefinition::couldDeserialize)
                    .map(BeanPropertyDefinition::getName)
                    .filter(name -> !NESTED.contains(section.name() + "." + name))
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> declared = Settings.of(section.factory()).stream()
                    .map(Settings.Declared::name)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(
                    properties,
                    declared,
                    section.factory().getSimpleName()
                            + ": every setting needs its @Setting declaration, and every declaration a property");
        }
    }

    @Test
    void theShippedConfigurationCarriesTheDefaults() throws Exception {
        DelayBridgeConfiguration shipped = new YamlConfigurationFactory<>(
                        DelayBridgeConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
                .build(
                        new SubstitutingSourceProvider(
                                new FileConfigurationSourceProvider(), new StringSubstitutor(Map.of())),
                        SHIPPED.toString());
        List<String> differ = new ArrayList<>();
        for (Section section : SECTIONS) {
            Object factory = section.shipped().apply(shipped);
            if (factory == null) {
                continue;
            }
            for (Settings.Declared setting : Settings.of(section.factory())) {
                String value = Settings.text(setting.valueIn(factory));
                if (!value.equals(setting.defaultText())) {
                    differ.add(section.name() + "." + setting.name() + " is " + value + " in config.yml, "
                            + setting.defaultText() + " in " + section.factory().getSimpleName());
                }
            }
        }
        assertEquals(List.of(), differ, "the shipped config.yml states the defaults; where they differ, one is wrong");
    }

    @Test
    void aBoundIsStatedOnlyOnceInItsDeclaration() {
        // the messages of bounds are made from the declaration; a bound or default written into a message by hand is
        // how "default 20ms" came to describe a setting whose default is 100ms
        for (Section section : SECTIONS) {
            for (Settings.Declared setting : Settings.of(section.factory())) {
                for (var annotation : setting.field().getAnnotations()) {
                    String type = annotation.annotationType().getSimpleName();
                    assertTrue(
                            !type.startsWith("Min") && !type.startsWith("Max"),
                            section.name() + "." + setting.name() + " has @" + type
                                    + ": state bounds in @Setting(min, max)");
                }
            }
        }
    }

    /** The table of one section: name, default, allowed values, description. */
    static String table(Section section) {
        StringBuilder table =
                new StringBuilder("| name | default | allowed | description |\n| --- | --- | --- | --- |\n");
        for (Settings.Declared setting : Settings.of(section.factory())) {
            Setting declared = setting.setting();
            String allowed = declared.min().isEmpty() && declared.max().isEmpty()
                    ? ""
                    : declared.min().isEmpty()
                            ? "at most `" + declared.max() + "`"
                            : declared.max().isEmpty()
                                    ? "at least `" + declared.min() + "`"
                                    : "`" + declared.min() + "` to `" + declared.max() + "`";
            table.append("| `")
                    .append(setting.name())
                    .append("` | ")
                    .append(defaultCell(setting))
                    .append(" | ")
                    .append(allowed)
                    .append(" | ")
                    .append(declared.value())
                    .append(" |\n");
        }
        return table.toString();
    }

    private static String defaultCell(Settings.Declared setting) {
        String value = setting.defaultText();
        String means = setting.setting().defaultMeans();
        if (value.isEmpty()) {
            return means;
        }
        return "`" + value + "`" + (means.isEmpty() ? "" : ": " + means);
    }

    /** The environment variables config.yml reads: variable, the settings it sets, the default. */
    static String environmentTable() throws IOException {
        Map<String, List<String>> settings = new LinkedHashMap<>();
        Map<String, String> defaults = new LinkedHashMap<>();
        List<Integer> indents = new ArrayList<>(); // the keys enclosing this line and their indentation
        List<String> path = new ArrayList<>();
        for (String line : Files.readAllLines(SHIPPED)) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#") || !trimmed.contains(":")) {
                continue;
            }
            boolean item = trimmed.startsWith("- ");
            int indent = line.indexOf(trimmed.charAt(0)) + (item ? 2 : 0);
            String key = (item ? trimmed.substring(2) : trimmed).split(":", 2)[0].strip();
            while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
                indents.remove(indents.size() - 1);
                path.remove(path.size() - 1);
            }
            indents.add(indent);
            path.add(key);
            Matcher variable = ENVIRONMENT.matcher(trimmed);
            if (variable.find()) {
                settings.computeIfAbsent(variable.group(1), v -> new ArrayList<>())
                        .add(String.join(".", path));
                defaults.put(variable.group(1), variable.group(2));
            }
        }
        StringBuilder table = new StringBuilder("| variable | setting | default |\n| --- | --- | --- |\n");
        settings.forEach((variable, keys) -> table.append("| `")
                .append(variable)
                .append("` | ")
                .append(keys.stream().map(k -> "`" + k + "`").collect(Collectors.joining(", ")))
                .append(" | ")
                .append(defaults.get(variable).isEmpty() ? "empty" : "`" + defaults.get(variable) + "`")
                .append(" |\n"));
        return table.toString();
    }
}
