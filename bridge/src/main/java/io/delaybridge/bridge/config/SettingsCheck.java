package io.delaybridge.bridge.config;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a factory's settings, with messages that carry the values found: first the bounds of each {@link Setting}
 * (from its declaration, so a message never states a bound or a default that the code does not have), then the checks
 * that span several settings of one factory ({@link Checked}). Bean Validation's {@code @ValidationMethod} can only
 * return a fixed text, and a user fixing a configuration needs to see the value that is wrong.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = SettingsCheck.Validator.class)
public @interface SettingsCheck {

    String message() default "is not consistent";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** A factory whose settings must agree with each other. */
    interface Checked {
        /** Adds a problem for each setting that is wrong; adds nothing when all is well. */
        void check(Problems problems);
    }

    /** The problems one factory found: which setting, and a message naming its value and the fix. */
    final class Problems {
        private record Problem(String setting, String message) {}

        private final List<Problem> found = new ArrayList<>();

        public void add(String setting, String message) {
            found.add(new Problem(setting, message));
        }

        /** How many problems were added so far. */
        public int size() {
            return found.size();
        }
    }

    final class Validator implements ConstraintValidator<SettingsCheck, Object> {
        @Override
        public boolean isValid(Object settings, ConstraintValidatorContext context) {
            if (settings == null) {
                return true;
            }
            Problems problems = new Problems();
            Settings.checkBounds(settings, problems);
            if (settings instanceof Checked checked) {
                checked.check(problems);
            }
            if (problems.found.isEmpty()) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            for (Problems.Problem problem : problems.found) {
                context.buildConstraintViolationWithTemplate(literal(problem.message()))
                        .addPropertyNode(problem.setting())
                        .addConstraintViolation();
            }
            return false;
        }

        /** Message templates interpret braces, dollar signs and backslashes: a value must be shown as it is. */
        private static String literal(String text) {
            return text.replace("\\", "\\\\")
                    .replace("{", "\\{")
                    .replace("}", "\\}")
                    .replace("$", "\\$");
        }
    }
}
