package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.store.redis.RedisTls;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS to Redis, for a {@code rediss://} (or {@code rediss-sentinel://}) {@code redis.uri}: whom to trust, which
 * client certificate to show (servers with {@code tls-auth-clients yes}, redis-server's default), and how strictly to
 * check the server. These settings apply to Redis alone; Kafka has its own under {@code kafka.common}, and no
 * JVM-wide {@code javax.net.ssl.*} property is needed. An empty value (as {@code ${VAR:-}} gives) is unset.
 *
 * <table>
 *   <caption>Settings under {@code redis.tls:} (environment variable in config.yml)</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>caFile ({@code REDIS_TLS_CA_FILE})</td><td>none</td><td>PEM file of the CA certificates to trust</td></tr>
 *   <tr><td>trustStore ({@code REDIS_TLS_TRUSTSTORE})</td><td>none</td><td>or a key store of them; with neither,
 *       the JVM's default CAs</td></tr>
 *   <tr><td>trustStorePassword ({@code REDIS_TLS_TRUSTSTORE_PASSWORD})</td><td>none</td><td>its password (a PKCS12
 *       store made by keytool hides its certificates without it)</td></tr>
 *   <tr><td>trustStoreType ({@code REDIS_TLS_TRUSTSTORE_TYPE})</td><td>PKCS12</td><td>or JKS</td></tr>
 *   <tr><td>certificateFile ({@code REDIS_TLS_CERT_FILE})</td><td>none</td><td>PEM client certificate chain, own
 *       certificate first</td></tr>
 *   <tr><td>keyFile ({@code REDIS_TLS_KEY_FILE})</td><td>none</td><td>its PKCS#8 PEM key</td></tr>
 *   <tr><td>keyPassword ({@code REDIS_TLS_KEY_PASSWORD})</td><td>none</td><td>if the key is encrypted</td></tr>
 *   <tr><td>keyStore ({@code REDIS_TLS_KEYSTORE})</td><td>none</td><td>or a key store with the client key and
 *       certificate</td></tr>
 *   <tr><td>keyStorePassword ({@code REDIS_TLS_KEYSTORE_PASSWORD})</td><td>none</td><td>its password (and the
 *       key's)</td></tr>
 *   <tr><td>keyStoreType ({@code REDIS_TLS_KEYSTORE_TYPE})</td><td>PKCS12</td><td>or JKS</td></tr>
 *   <tr><td>verifyPeer ({@code REDIS_TLS_VERIFY_PEER})</td><td>full</td><td>{@code full}: signed by a trusted CA
 *       and issued for the host in redis.uri; {@code ca}: the CA only; {@code none}: no check (tests only)</td></tr>
 * </table>
 */
@SettingsCheck
public class RedisTlsFactory implements SettingsCheck.Checked {

    private String caFile;
    private String trustStore;
    private String trustStorePassword;
    private String trustStoreType = "PKCS12";
    private String certificateFile;
    private String keyFile;
    private String keyPassword;
    private String keyStore;
    private String keyStorePassword;
    private String keyStoreType = "PKCS12";

    @NotNull(message = "is empty: use full, ca or none")
    private RedisTls.Verify verifyPeer = RedisTls.Verify.FULL;

    @Override
    public void check(SettingsCheck.Problems problems) {
        readable(problems, "caFile", caFile);
        readable(problems, "trustStore", trustStore);
        readable(problems, "certificateFile", certificateFile);
        readable(problems, "keyFile", keyFile);
        readable(problems, "keyStore", keyStore);
        if (set(caFile) && set(trustStore)) {
            problems.add("trustStore", "is set beside caFile: give the CA either as a PEM file (caFile) or in a key"
                    + " store (trustStore), not both");
        }
        if (set(certificateFile) != set(keyFile)) {
            problems.add(set(keyFile) ? "certificateFile" : "keyFile", "is empty but "
                    + (set(keyFile) ? "keyFile" : "certificateFile") + " is set: a client certificate needs both"
                    + " (REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE)");
        }
        if (set(keyStore) && (set(certificateFile) || set(keyFile))) {
            problems.add("keyStore", "is set beside certificateFile/keyFile: give the client certificate either as"
                    + " PEM files or in a key store, not both");
        }
    }

    private static void readable(SettingsCheck.Problems problems, String setting, String value) {
        if (set(value) && !Files.isReadable(Path.of(value))) {
            problems.add(setting, "is \"" + value + "\": no readable file there. Check the path and the file's"
                    + " permissions");
        }
    }

    private static boolean set(String value) {
        return value != null && !value.isBlank();
    }

    private static Path path(String value) {
        return set(value) ? Path.of(value) : null;
    }

    private static String orNull(String value) {
        return set(value) ? value : null;
    }

    /** Whether any file is configured: then {@code redis.uri} must ask for TLS. */
    boolean configured() {
        return set(caFile) || set(trustStore) || set(certificateFile) || set(keyFile) || set(keyStore);
    }

    /** The store layer's TLS settings; files are read when the store connects. */
    public RedisTls build() {
        return new RedisTls(path(caFile), path(trustStore), orNull(trustStorePassword),
                set(trustStoreType) ? trustStoreType : "PKCS12", path(certificateFile), path(keyFile),
                orNull(keyPassword), path(keyStore), orNull(keyStorePassword),
                set(keyStoreType) ? keyStoreType : "PKCS12", verifyPeer);
    }

    @JsonProperty
    public String getCaFile() {
        return caFile;
    }

    @JsonProperty
    public void setCaFile(String caFile) {
        this.caFile = caFile;
    }

    @JsonProperty
    public String getTrustStore() {
        return trustStore;
    }

    @JsonProperty
    public void setTrustStore(String trustStore) {
        this.trustStore = trustStore;
    }

    /** Write-only: a configuration written back out never carries the secret. */
    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public void setTrustStorePassword(String trustStorePassword) {
        this.trustStorePassword = trustStorePassword;
    }

    @JsonProperty
    public String getTrustStoreType() {
        return trustStoreType;
    }

    @JsonProperty
    public void setTrustStoreType(String trustStoreType) {
        this.trustStoreType = trustStoreType;
    }

    @JsonProperty
    public String getCertificateFile() {
        return certificateFile;
    }

    @JsonProperty
    public void setCertificateFile(String certificateFile) {
        this.certificateFile = certificateFile;
    }

    @JsonProperty
    public String getKeyFile() {
        return keyFile;
    }

    @JsonProperty
    public void setKeyFile(String keyFile) {
        this.keyFile = keyFile;
    }

    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public void setKeyPassword(String keyPassword) {
        this.keyPassword = keyPassword;
    }

    @JsonProperty
    public String getKeyStore() {
        return keyStore;
    }

    @JsonProperty
    public void setKeyStore(String keyStore) {
        this.keyStore = keyStore;
    }

    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public void setKeyStorePassword(String keyStorePassword) {
        this.keyStorePassword = keyStorePassword;
    }

    @JsonProperty
    public String getKeyStoreType() {
        return keyStoreType;
    }

    @JsonProperty
    public void setKeyStoreType(String keyStoreType) {
        this.keyStoreType = keyStoreType;
    }

    @JsonProperty
    public RedisTls.Verify getVerifyPeer() {
        return verifyPeer;
    }

    @JsonProperty
    public void setVerifyPeer(RedisTls.Verify verifyPeer) {
        this.verifyPeer = verifyPeer;
    }
}
