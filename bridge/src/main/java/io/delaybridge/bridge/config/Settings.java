package io.delaybridge.bridge.config;

import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@link Setting} declarations of a factory class, their defaults, bounds, and how a value is written. */
public final class Settings {

    private Settings() {}

    /** One declared setting: its name, its declaration, its field, and the default (the field's initial value). */
    public record Declared(String name, Setting setting, Field field, Object defaultValue) {

        /** The default as written in a configuration file and in the docs; {@code ""} for none. */
        public String defaultText() {
            return text(defaultValue);
        }

        /** The value this setting has in {@code factory}. */
        public Object valueIn(Object factory) {
            try {
                return field.get(factory);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + name, e);
            }
        }

        /** Null if {@code value} is within the bounds, else the message that names the value and the fix. */
        String outOfBounds(Object value) {
            if (value == null || (setting.min().isEmpty() && setting.max().isEmpty())) {
                return null;
            }
            double number = magnitude(value);
            boolean low = !setting.min().isEmpty() && number < magnitude(parse(setting.min(), value));
            boolean high = !setting.max().isEmpty() && number > magnitude(parse(setting.max(), value));
            if (!low && !high) {
                return null;
            }
            String range = setting.min().isEmpty()
                    ? "at most " + setting.max()
                    : setting.max().isEmpty() ? "at least " + setting.min() : setting.min() + " to " + setting.max();
            String why = setting.why().isEmpty() ? "" : " (" + setting.why() + ")";
            return "is " + value + ": use " + range + ", e.g. " + defaultText() + why;
        }
    }

    /** The settings {@code factory} declares, in the order of its fields. */
    public static List<Declared> of(Class<?> factory) {
        Object defaults;
        try {
            var constructor = factory.getDeclaredConstructor();
            constructor.setAccessible(true);
            defaults = constructor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(factory.getName() + " needs a constructor without arguments", e);
        }
        List<Declared> declared = new ArrayList<>();
        for (Field field : factory.getDeclaredFields()) {
            Setting setting = field.getAnnotation(Setting.class);
            if (setting != null) {
                field.setAccessible(true);
                String name = setting.name().isEmpty() ? field.getName() : setting.name();
                Declared d = new Declared(name, setting, field, null);
                declared.add(new Declared(name, setting, field, d.valueIn(defaults)));
            }
        }
        return declared;
    }

    /** Adds a problem for each declared setting of {@code factory} whose value is outside its bounds. */
    static void checkBounds(Object factory, SettingsCheck.Problems problems) {
        for (Declared declared : of(factory.getClass())) {
            String problem = declared.outOfBounds(declared.valueIn(factory));
            if (problem != null) {
                problems.add(declared.name(), problem);
            }
        }
    }

    /** A value as one writes it in config.yml: {@code 100ms}, {@code 32MiB}, {@code broker}, {@code []}. */
    public static String text(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Duration duration) {
            return duration.getQuantity()
                    + switch (duration.getUnit()) {
                        case NANOSECONDS -> "ns";
                        case MICROSECONDS -> "us";
                        case MILLISECONDS -> "ms";
                        case SECONDS -> "s";
                        case MINUTES -> "m";
                        case HOURS -> "h";
                        case DAYS -> "d";
                    };
        }
        if (value instanceof DataSize size) {
            return size.getQuantity()
                    + switch (size.getUnit()) {
                        case BYTES -> "B";
                        case KIBIBYTES -> "KiB";
                        case MEBIBYTES -> "MiB";
                        case GIBIBYTES -> "GiB";
                        case TEBIBYTES -> "TiB";
                        case PEBIBYTES -> "PiB";
                        case KILOBYTES -> "KB";
                        case MEGABYTES -> "MB";
                        case GIGABYTES -> "GB";
                        case TERABYTES -> "TB";
                        case PETABYTES -> "PB";
                    };
        }
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT);
        }
        if (value instanceof Double number && number == Math.rint(number) && !Double.isInfinite(number)) {
            return String.valueOf(number.longValue());
        }
        if (value instanceof Collection<?> list && list.isEmpty()) {
            return "[]";
        }
        if (value instanceof Map<?, ?> map && map.isEmpty()) {
            return "{}";
        }
        return String.valueOf(value);
    }

    private static Object parse(String bound, Object like) {
        if (like instanceof Duration) {
            return Duration.parse(bound);
        }
        if (like instanceof DataSize) {
            return DataSize.parse(bound);
        }
        return Double.parseDouble(bound);
    }

    private static double magnitude(Object value) {
        if (value instanceof Duration duration) {
            return duration.toNanoseconds();
        }
        if (value instanceof DataSize size) {
            return size.toBytes();
        }
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        throw new IllegalArgumentException("a setting with bounds must be a number, a duration or a size: " + value);
    }
}
