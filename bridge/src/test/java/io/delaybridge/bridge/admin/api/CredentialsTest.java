package io.delaybridge.bridge.admin.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CredentialsTest {

    private final Credentials credentials =
            new Credentials(Map.of("ci", "0123456789abcdef0123"), Map.of("alice", "alice-password-1"));

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aBearerTokenNamesItsPrincipal() {
        assertEquals(Optional.of("token:ci"), credentials.authenticate("Bearer 0123456789abcdef0123"));
        assertEquals(Optional.of("token:ci"), credentials.authenticate("bearer 0123456789abcdef0123"));
    }

    @Test
    void basicAuthNamesTheUser() {
        assertEquals(Optional.of("basic:alice"), credentials.authenticate(basic("alice", "alice-password-1")));
    }

    @Test
    void anythingElseIsRefused() {
        for (String header : new String[] {
            null,
            "",
            "Bearer",
            "Bearer wrong",
            "Bearer 0123456789abcdef012",
            basic("alice", "wrong"),
            basic("bob", "alice-password-1"),
            basic("alice", ""),
            "Basic !!!",
            "Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes(StandardCharsets.UTF_8)),
            "Digest 0123456789abcdef0123"
        }) {
            assertTrue(credentials.authenticate(header).isEmpty(), String.valueOf(header));
        }
    }

    @Test
    void noCredentialsMeansEmptyAndNothingAuthenticates() {
        Credentials none = new Credentials(Map.of(), Map.of());
        assertTrue(none.isEmpty());
        assertTrue(none.authenticate("Bearer ").isEmpty());
        assertTrue(none.authenticate(basic("", "")).isEmpty());
    }
}
