package io.delaybridge.bridge.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One setting, declared once on the factory field that holds it (after apache/kafka's {@code ConfigDef}: name, type,
 * default and documentation together). The field's name is the setting's name, its initial value the default, its
 * type the type; this annotation adds the bounds and the one-line description.
 *
 * <p>From these declarations come the bounds check at start-up ({@link SettingsCheck}: "pump.lookAhead is 2 seconds:
 * use 0ms to 1s, e.g. 100ms"), the tables of docs/configuration.md and the check that the shipped config.yml carries
 * the defaults (both by {@code SettingsDocsTest}, which fails when they disagree). Adding a setting is one field with
 * this annotation (and its getter and setter for Jackson).
 *
 * <pre>{@code
 * @Setting(value = "the most messages one claim takes from a shard", min = "1", max = "10000")
 * private int batchSize = 500;
 * }</pre>
 */
@Documented
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface Setting {

    /** What the setting does, in one or two sentences: the row of the table in docs/configuration.md. */
    String value();

    /** The lowest value allowed, in the setting's own syntax ({@code 1}, {@code 10ms}, {@code 1KiB}); empty: none. */
    String min() default "";

    /** The highest value allowed, in the setting's own syntax; empty: none. */
    String max() default "";

    /** Why the bounds, said after an out-of-bounds value ("they are held in memory"); empty: nothing. */
    String why() default "";

    /** The setting's name in the file where the field cannot carry it (a Java keyword such as {@code default}). */
    String name() default "";

    /** What the default means where its value alone does not say it (an empty instanceId: "the host name"). */
    String defaultMeans() default "";
}
