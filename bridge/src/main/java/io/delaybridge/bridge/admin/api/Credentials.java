package io.delaybridge.bridge.admin.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The configured bearer tokens and basic-auth users, and the check of an {@code Authorization} header against them.
 * Secrets are compared in constant time. Holds no default credentials: with none configured, {@link #isEmpty()}.
 */
public final class Credentials {

    private final Map<String, byte[]> tokens; // principal -> token
    private final Map<String, byte[]> users; // user -> password

    public Credentials(Map<String, String> tokens, Map<String, String> users) {
        this.tokens = utf8Values(tokens);
        this.users = utf8Values(users);
    }

    private static Map<String, byte[]> utf8Values(Map<String, String> map) {
        return map.entrySet().stream()
                .collect(java.util.stream.Collectors.toUnmodifiableMap(
                        Map.Entry::getKey, e -> e.getValue().getBytes(StandardCharsets.UTF_8)));
    }

    public boolean isEmpty() {
        return tokens.isEmpty() && users.isEmpty();
    }

    /** The principal an {@code Authorization} header proves, or empty. */
    public Optional<String> authenticate(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        int space = authorization.indexOf(' ');
        if (space < 0) {
            return Optional.empty();
        }
        String scheme = authorization.substring(0, space);
        String value = authorization.substring(space + 1).trim();
        if (scheme.equalsIgnoreCase("Bearer")) {
            byte[] given = value.getBytes(StandardCharsets.UTF_8);
            String found = null;
            for (Map.Entry<String, byte[]> token : tokens.entrySet()) {
                if (MessageDigest.isEqual(token.getValue(), given) && found == null) {
                    found = "token:" + token.getKey(); // keep looping: the time taken does not tell which token matched
                }
            }
            return Optional.ofNullable(found);
        }
        if (scheme.equalsIgnoreCase("Basic")) {
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            String user = decoded.substring(0, colon);
            byte[] password = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
            byte[] expected = users.get(user);
            boolean ok = MessageDigest.isEqual(expected == null ? new byte[0] : expected, password);
            return ok && expected != null ? Optional.of("basic:" + user) : Optional.empty();
        }
        return Optional.empty();
    }
}
