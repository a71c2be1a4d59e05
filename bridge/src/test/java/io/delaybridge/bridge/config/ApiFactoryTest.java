package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.admin.api.ApiSettings;
import io.dropwizard.jersey.validation.Validators;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ApiFactoryTest {

    private final Validator validator = Validators.newValidator();

    private Set<String> violations(ApiFactory factory) {
        return validator.validate(factory).stream()
                .map(ConstraintViolation::getMessage)
                .collect(Collectors.toSet());
    }

    @Test
    void theDefaultsHaveNoCredentialsAndAreValid() {
        ApiFactory factory = new ApiFactory();
        assertTrue(violations(factory).isEmpty());
        ApiSettings settings = factory.build();
        assertTrue(settings.credentials().isEmpty(), "no default credentials");
        assertFalse(settings.authenticateReads());
        assertEquals(64 * 1024, settings.maxBodyBytes());
    }

    @Test
    void shortSecretsAreRefusedWithTheFix() {
        ApiFactory factory = new ApiFactory();
        factory.setToken("short");
        factory.setUsers(Map.of("bob", "short"));
        Set<String> messages = violations(factory);
        assertTrue(messages.stream().anyMatch(m -> m.contains("at least 16 characters")), messages.toString());
        assertTrue(messages.stream().anyMatch(m -> m.contains("at least 12 characters")), messages.toString());
    }

    @Test
    void anEmptyTokenMeansNoneAndNamedTokensBecomePrincipals() {
        ApiFactory factory = new ApiFactory();
        factory.setToken("");
        factory.setTokens(Map.of("ci", "0123456789abcdef"));
        assertTrue(violations(factory).isEmpty());
        assertEquals(
                "token:ci",
                factory.build()
                        .credentials()
                        .authenticate("Bearer 0123456789abcdef")
                        .orElseThrow());
    }

    @Test
    void limitsAreBounded() {
        ApiFactory factory = new ApiFactory();
        factory.setMaxBulkCancel(0);
        factory.setMaxReplay(20_000_000);
        assertEquals(2, validator.validate(factory).size());
    }
}
