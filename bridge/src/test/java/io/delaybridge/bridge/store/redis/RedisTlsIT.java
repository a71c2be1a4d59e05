package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.testkit.RedisSentinels;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store over TLS to a redis-server that speaks TLS only and requires client certificates ({@code --port 0
 * --tls-port P --tls-auth-clients yes}): each way to give trust and key material connects, and each way to get it
 * wrong stops start-up with a message that names the setting to fix and carries no secret.
 */
class RedisTlsIT {

    private static final String USER_PASSWORD = "tls-user-secret-7f3a";

    @TempDir
    static Path dir;

    private static TestCertificates certs;
    private static RedisServer redis;
    private static RedisServer elsewhere;

    @BeforeAll
    static void startServers() {
        certs = TestCertificates.create(dir.resolve("certs"));
        redis = RedisServer.startTls(dir.resolve("redis"), certs, List.of());
        redis.call("ACL", "SETUSER", "tls-user", "on", ">" + USER_PASSWORD, "~*", "&*", "+@all");
        elsewhere = RedisServer.startTls(
                dir.resolve("elsewhere"),
                certs,
                List.of(
                        "--tls-cert-file", certs.elsewhereCertificate().toString(),
                        "--tls-key-file", certs.elsewhereKey().toString()));
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (elsewhere != null) {
            elsewhere.close();
        }
    }

    private static RedisTls pem() {
        return new RedisTls(
                certs.caFile(),
                null,
                null,
                null,
                certs.clientCertificate(),
                certs.clientKey(),
                null,
                null,
                null,
                null,
                RedisTls.Verify.FULL);
    }

    private static RedisStoreOptions options(String uri, RedisTls tls) {
        return RedisStoreOptions.of(uri, "tls-intake", 2)
                .withCommandTimeout(Duration.ofSeconds(2))
                .withTls(tls);
    }

    private static void connects(String uri, RedisTls tls) {
        try (RedisDelayStore store = RedisDelayStore.connect(options(uri, tls))) {
            assertEquals(RedisMode.STANDALONE, store.mode());
            assertFalse(store.incarnation().isEmpty());
        }
    }

    private static String refused(String uri, RedisTls tls) {
        StoreException e = assertThrows(
                StoreException.class,
                () -> RedisDelayStore.connect(options(uri, tls)).close());
        String message = e.getMessage();
        assertFalse(message.contains(USER_PASSWORD), message);
        assertFalse(message.contains(certs.password()), message);
        return message;
    }

    @Test
    void pemCaAndClientCertificateConnect() {
        assertTrue(redis.uri().startsWith("rediss://127.0.0.1:"), redis.uri());
        connects(redis.uri(), pem());
    }

    @Test
    void keyStoresWithTheirPasswordsConnectAsAnAclUser() {
        RedisTls stores = new RedisTls(
                null,
                certs.trustStore(),
                certs.password(),
                "PKCS12",
                null,
                null,
                null,
                certs.clientKeyStore(),
                certs.password(),
                "PKCS12",
                RedisTls.Verify.FULL);
        connects(redis.uri().replace("rediss://", "rediss://tls-user:" + USER_PASSWORD + "@"), stores);
    }

    @Test
    void aTrustStoreWithoutItsPasswordNamesThePasswordSetting() {
        RedisTls noPassword = new RedisTls(
                null,
                certs.trustStore(),
                null,
                "PKCS12",
                certs.clientCertificate(),
                certs.clientKey(),
                null,
                null,
                null,
                null,
                RedisTls.Verify.FULL);
        String message = refused(redis.uri(), noPassword);
        assertTrue(message.contains("redis.tls.trustStorePassword"), message);
    }

    @Test
    void aWrongKeyStorePasswordNamesTheSetting() {
        RedisTls wrong = new RedisTls(
                certs.caFile(),
                null,
                null,
                null,
                null,
                null,
                null,
                certs.clientKeyStore(),
                "not-the-password",
                "PKCS12",
                RedisTls.Verify.FULL);
        String message = refused(redis.uri(), wrong);
        assertTrue(message.contains("redis.tls.keyStorePassword"), message);
        assertFalse(message.contains("not-the-password"), message);
    }

    @Test
    void aServerThatWantsAClientCertificateSaysWhichSettingsGiveOne() {
        RedisTls noCertificate = new RedisTls(
                certs.caFile(), null, null, null, null, null, null, null, null, null, RedisTls.Verify.FULL);
        String message = refused(redis.uri(), noCertificate);
        assertTrue(message.contains("requires a client certificate"), message);
        assertTrue(message.contains("redis.tls.certificateFile"), message);
    }

    @Test
    void aClientCertificateTheServerDoesNotTrustIsNamed() {
        RedisTls stranger = new RedisTls(
                certs.caFile(),
                null,
                null,
                null,
                certs.strangerCertificate(),
                certs.strangerKey(),
                null,
                null,
                null,
                null,
                RedisTls.Verify.FULL);
        String message = refused(redis.uri(), stranger);
        assertTrue(message.contains("refused the client certificate of redis.tls.certificateFile"), message);
    }

    @Test
    void aServerCertificateFromAnotherCaNamesTheTrustSetting() {
        RedisTls otherCa = new RedisTls(
                certs.strangerCa(),
                null,
                null,
                null,
                certs.clientCertificate(),
                certs.clientKey(),
                null,
                null,
                null,
                null,
                RedisTls.Verify.FULL);
        String message = refused(redis.uri(), otherCa);
        assertTrue(message.contains("is not signed by a CA in redis.tls.caFile"), message);
    }

    @Test
    void aHostNameMismatchNamesVerifyPeerAndCaModeAcceptsIt() {
        String message = refused(elsewhere.uri(), pem());
        assertTrue(message.contains("not among the names in the certificate"), message);
        assertTrue(message.contains("redis.tls.verifyPeer"), message);
        RedisTls caOnly = new RedisTls(
                certs.caFile(),
                null,
                null,
                null,
                certs.clientCertificate(),
                certs.clientKey(),
                null,
                null,
                null,
                null,
                RedisTls.Verify.CA);
        connects(elsewhere.uri(), caOnly);
    }

    /** Sentinel with TLS everywhere: the sentinels, the master they name and its replication. */
    @Test
    void sentinelsAndTheirMasterOverTls() {
        try (RedisSentinels sentinels = RedisSentinels.startTls(dir.resolve("sentinels"), "tls-master", certs)) {
            assertTrue(sentinels.uri().startsWith("rediss-sentinel://"), sentinels.uri());
            try (RedisDelayStore store = RedisDelayStore.connect(options(sentinels.uri(), pem()))) {
                assertEquals(RedisMode.SENTINEL, store.mode());
                assertFalse(store.incarnation().isEmpty());
            }
            RedisTls noCertificate = new RedisTls(
                    certs.caFile(), null, null, null, null, null, null, null, null, null, RedisTls.Verify.FULL);
            String message = refused(sentinels.uri(), noCertificate);
            assertTrue(message.contains("requires a client certificate"), message);
        }
    }

    @Test
    void aPlainUriToATlsPortSuggestsRediss() {
        StoreException e = assertThrows(
                StoreUnavailableException.class,
                () -> RedisDelayStore.connect(options(redis.uri().replace("rediss://", "redis://"), RedisTls.DEFAULTS))
                        .close());
        assertTrue(e.getMessage().contains("use rediss://"), e.getMessage());
    }

    @Test
    void aWrongPasswordNamesRedisUriAndHidesThePassword() {
        String uri = redis.uri().replace("rediss://", "rediss://tls-user:wrong-" + USER_PASSWORD + "@");
        StoreException e = assertThrows(
                StoreConfigurationException.class,
                () -> RedisDelayStore.connect(options(uri, pem())).close());
        assertTrue(e.getMessage().contains("redis.uri (REDIS_URI)"), e.getMessage());
        assertFalse(e.getMessage().contains(USER_PASSWORD), e.getMessage());
    }
}
