package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TLS settings' own checks and the handshake failures' translation: no server needed. */
class RedisTlsTest {

    @TempDir
    Path dir;

    private static RedisStoreOptions options(String uri, RedisTls tls) {
        return RedisStoreOptions.of(uri, "intake", 1).withTls(tls);
    }

    @Test
    void passwordsNeverAppearInTheTextOfTheSettings() {
        RedisTls tls = new RedisTls(
                null,
                Path.of("t.p12"),
                "trust-secret",
                "PKCS12",
                null,
                null,
                null,
                Path.of("k.p12"),
                "key-secret",
                "PKCS12",
                RedisTls.Verify.FULL);
        String text = options("rediss://u:uri-secret@h:6380", tls).toString();
        assertFalse(text.contains("trust-secret") || text.contains("key-secret") || text.contains("uri-secret"), text);
    }

    @Test
    void aPemFileWithoutCertificatesNamesItsSetting() throws Exception {
        Path empty = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");
        RedisTls tls = new RedisTls(empty, null, null, null, null, null, null, null, null, null, null);
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, tls::sslOptions);
        assertTrue(e.getMessage().contains("redis.tls.caFile (" + empty + ")"), e.getMessage());
    }

    @Test
    void aKeyFileThatIsNoPkcs8KeySaysHowToConvertIt() throws Exception {
        Path key = Files.writeString(
                dir.resolve("key.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n" + "-----END RSA PRIVATE KEY-----\n");
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        RedisTls tls = new RedisTls(null, null, null, null, cert, key, null, null, null, null, null);
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, tls::sslOptions);
        assertTrue(e.getMessage().contains("redis.tls."), e.getMessage());
    }

    @Test
    void handshakeFailuresNameTheSettingToFix() {
        RedisStoreOptions tls = options("rediss://127.0.0.1:6380", RedisTls.DEFAULTS);
        assertTrue(RedisTlsErrors.explain(
                        new SSLHandshakeException("PKIX path building failed: unable to find"
                                + " valid certification path to requested target"),
                        tls)
                .getMessage()
                .contains("the JVM's default trust store (set redis.tls.caFile or redis.tls.trustStore)"));
        assertTrue(RedisTlsErrors.explain(
                        new SSLHandshakeException(
                                "No subject alternative names matching IP" + " address 127.0.0.1 found"),
                        tls)
                .getMessage()
                .contains("redis.uri (127.0.0.1)"));
        assertTrue(RedisTlsErrors.explain(new SSLHandshakeException("Received fatal alert: certificate_required"), tls)
                .getMessage()
                .contains("redis.tls.certificateFile and redis.tls.keyFile"));
        assertTrue(RedisTlsErrors.explain(
                        new RuntimeException(
                                "x",
                                new java.security.InvalidAlgorithmParameterException(
                                        "the trustAnchors parameter must be non-empty")),
                        tls)
                .getMessage()
                .contains("REDIS_TLS_CA_FILE"));
    }

    @Test
    void aPlainUriIsNeverExplainedAsTls() {
        assertNull(RedisTlsErrors.explain(
                new SSLHandshakeException("PKIX path building failed"),
                options("redis://127.0.0.1:6379", RedisTls.DEFAULTS)));
    }
}
