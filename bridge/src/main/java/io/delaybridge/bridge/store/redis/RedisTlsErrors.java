package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import java.net.URI;
import java.util.Locale;

/**
 * Turns a failed TLS connection to Redis into a start-up error that names the setting to fix. The JDK's own words
 * ("PKIX path building failed", "Received fatal alert: certificate_required") say what went wrong in the handshake,
 * not which of {@code redis.uri} and {@code redis.tls.*} to change; a user should not have to know the difference.
 */
final class RedisTlsErrors {

    private RedisTlsErrors() {}

    /**
     * The configuration error that {@code failure} (from connecting with {@code options}) stands for, or null if it
     * is no TLS problem.
     */
    static StoreConfigurationException explain(Throwable failure, RedisStoreOptions options) {
        String chain = messages(failure);
        String lower = chain.toLowerCase(Locale.ROOT);
        RedisTls tls = options.tls();
        String where = "Redis at " + options.redactedUri();
        String hint = null;
        if (!options.usesTls()) {
            return null;
        }
        if (lower.contains("unsupported or unrecognized ssl message") || lower.contains("plaintext connection")) {
            hint = where + " does not speak TLS on that port. Use redis:// for a plain port, or the port of its"
                    + " tls-port in redis.uri (REDIS_URI).";
        } else if (lower.contains("trustanchors parameter must be non-empty")) {
            hint = "There is no certificate to trust for " + where + ": " + tls.trustSetting() + " holds none. Set"
                    + " redis.tls.caFile (REDIS_TLS_CA_FILE) to the PEM of the CA that signed Redis's certificate,"
                    + " or redis.tls.trustStore with redis.tls.trustStorePassword.";
        } else if (lower.contains("no subject alternative") || lower.contains("no name matching")) {
            hint = "The host name in redis.uri (" + host(options) + ") is not among the names in the certificate of "
                    + where + ". Connect by a name the certificate lists, have it re-issued with this name, or set"
                    + " redis.tls.verifyPeer: ca (REDIS_TLS_VERIFY_PEER) to check the CA only.";
        } else if (lower.contains("pkix path")
                || lower.contains("unable to find valid certification path")
                || lower.contains("signature check failed")) {
            hint = "The certificate of " + where + " is not signed by a CA in " + tls.trustSetting() + ". Put the CA"
                    + " that signed it (Redis's tls-ca-cert-file, or your company CA) there.";
        } else if (lower.contains("certificate_required")
                || !tls.hasClientCertificate()
                        && (lower.contains("bad_certificate") || lower.contains("handshake_failure"))) {
            hint = where + " requires a client certificate (tls-auth-clients yes) and none is configured. Set"
                    + " redis.tls.certificateFile and redis.tls.keyFile (REDIS_TLS_CERT_FILE, REDIS_TLS_KEY_FILE),"
                    + " or redis.tls.keyStore with its password.";
        } else if (tls.hasClientCertificate()
                && (lower.contains("unknown_ca")
                        || lower.contains("bad_certificate")
                        || lower.contains("certificate_unknown")
                        || lower.contains("certificate_expired")
                        || lower.contains("decrypt_error")
                        || lower.contains("access_denied"))) {
            hint = where + " refused the client certificate of " + tls.certificateSetting() + ": it is not signed by"
                    + " a CA that Redis trusts (its tls-ca-cert-file), or it has expired. Use a certificate issued by"
                    + " that CA.";
        } else if (lower.contains("sslhandshakeexception") || lower.contains("ssl") && lower.contains("alert")) {
            hint = "The TLS handshake with " + where + " failed (" + root(failure) + "). Check redis.tls.* against"
                    + " the server's tls-* settings (CA, client certificate, protocols).";
        }
        return hint == null ? null : new StoreConfigurationException(hint, failure);
    }

    private static String host(RedisStoreOptions options) {
        try {
            String first = options.redisUri().split(",")[0];
            String host = URI.create(first.contains("://") ? first : "redis://" + first)
                    .getHost();
            return host == null ? "?" : host;
        } catch (IllegalArgumentException e) {
            return "?";
        }
    }

    /** Every exception's class and message along the cause chain. */
    static String messages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            text.append(t.getClass().getSimpleName())
                    .append(": ")
                    .append(t.getMessage())
                    .append(" | ");
            for (Throwable suppressed : t.getSuppressed()) {
                text.append(messages(suppressed));
            }
        }
        return text.toString();
    }

    private static String root(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
