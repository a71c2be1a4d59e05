package io.delaybridge.connectors.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.function.Predicate;
import org.springframework.kafka.listener.ErrorHandlingUtils;
import org.springframework.kafka.listener.ExceptionClassifier;

/**
 * Asks a Spring Kafka {@link ExceptionClassifier} (the error handler itself) whether an exception is retryable, the
 * way its own error handling does, on every supported Spring Kafka line. Spring Kafka 4 reads it from
 * {@code getExceptionMatcher().match(e)}, 3.3 from {@code getClassifier().classify(e)} (spring-retry's): the two
 * lines have no common method, so the one present is found once, by name.
 */
final class SpringClassification {

    private static final Method CLASSIFIER = accessor();

    private SpringClassification() {}

    /**
     * Spring's classification (its default not-retryable exceptions, matched with causes) with {@code notRetryable}
     * added, for the recoverer alone.
     */
    @SafeVarargs
    static Predicate<Exception> standalone(Class<? extends Exception>... notRetryable) {
        ExceptionClassifier classifier = new ExceptionClassifier() {};
        if (notRetryable.length > 0) {
            classifier.addNotRetryableExceptions(notRetryable);
        }
        return e -> isRetryable(classifier, e);
    }

    static boolean isRetryable(ExceptionClassifier classifier, Exception e) {
        Throwable cause = ErrorHandlingUtils.unwrapIfNeeded(e);
        try {
            Object matcher = CLASSIFIER.invoke(classifier);
            Method test = matcher.getClass()
                    .getMethod(
                            CLASSIFIER.getName().equals("getExceptionMatcher") ? "match" : "classify", Throwable.class);
            return Boolean.TRUE.equals(test.invoke(matcher, cause));
        } catch (IllegalAccessException | NoSuchMethodException e2) {
            throw new IllegalStateException("cannot classify " + e + " with this Spring Kafka version", e2);
        } catch (InvocationTargetException e2) {
            throw new IllegalStateException("classifying " + e + " failed", e2.getCause());
        }
    }

    private static Method accessor() {
        for (String name : new String[] {"getExceptionMatcher", "getClassifier"}) {
            try {
                Method m = ExceptionClassifier.class.getDeclaredMethod(name);
                m.setAccessible(true);
                return m;
            } catch (NoSuchMethodException e) {
                // the other Spring Kafka line
            }
        }
        throw new IllegalStateException("this Spring Kafka has neither getExceptionMatcher() (4.x) nor"
                + " getClassifier() (3.3) on ExceptionClassifier: use Spring Kafka 3.3 or later");
    }
}
