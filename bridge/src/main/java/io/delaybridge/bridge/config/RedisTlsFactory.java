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
 * JVM-wide {@code javax.net.ssl.*} property is needed. An empty value (as {@code ${VAR:-}} gives) is unset. Settings
 * under {@code redis.tls:} (docs/configuration.md).
 */
@SettingsCheck
public class RedisTlsFactory implements SettingsCheck.Checked {

    @Setting("PEM file of the CA certificates to trust.")
    private String caFile;

    @Setting("Or a key store of them; with neither, the JVM's default CAs.")
    private String trustStore;

    @Setting("The trust store's password (a PKCS12 store made by keytool hides its certificates without it).")
    private String trustStorePassword;

    @Setting("`PKCS12` or `JKS`.")
    private String trustStoreType = "PKCS12";

    @Setting("PEM client certificate chain, own certificate first, for servers with `tls-auth-clients yes`.")
    private String certificateFile;

    @Setting("The client certificate's PKCS#8 PEM key.")
    private String keyFile;

    @Setting("The key's password, if it is encrypted.")
    private String keyPassword;

    @Setting("Or a key store with the client key and certificate.")
    private String keyStore;

    @Setting("The key store's password (and the key's).")
    private String keyStorePassword;

    @Setting("`PKCS12` or `JKS`.")
    private String keyStoreType = "PKCS12";

    @NotNull(message = "is empty: use full, ca or none")
    @Setting("`full`: signed by a trusted CA and issued for the host in `redis.uri`; `ca`: the CA only; `none`: no"
            + " check (tests only).")
    private RedisTls.Verify verifyPeer = RedisTls.Verify.FULL;

    @Override
    public void check(SettingsCheck.Problems problems) {
        readable(problems, "caFile", caFile);
        readable(problems, "trustStore", trustStore);
        readable(problems, "certificateFile", certificateFile);
        readable(problems, "keyFile", keyFile);
        readable(problems, "keyStore", keyStore);
        if (set(caFile) && set(trustStore)) {
            problems.add(
                    "trustStore",
                    "is set beside caFile: give the CA either as a PEM file (caFile) or in a key"
                            + " store (trustStore), not both");
        }
        if (set(certificateFile) != set(keyFile)) {
            problems.add(
                    set(keyFile) ? "certificateFile" : "keyFile",
                    "is empty but "
                            + (set(keyFile) ? "keyFile" : "certificateFile")
                            + " is set: a client certificate needs both"
                            + " (REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE)");
        }
        if (set(keyStore) && (set(certificateFile) || set(keyFile))) {
            problems.add(
                    "keyStore",
                    "is set beside certificateFile/keyFile: give the client certificate either as"
                            + " PEM files or in a key store, not both");
        }
    }

    private static void readable(SettingsCheck.Problems problems, String setting, String value) {
        if (set(value) && !Files.isReadable(Path.of(value))) {
            problems.add(
                    setting,
                    "is \"" + value + "\": no readable file there. Check the path and the file's" + " permissions");
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
        return new RedisTls(
                path(caFile),
                path(trustStore),
                orNull(trustStorePassword),
                set(trustStoreType) ? trustStoreType : "PKCS12",
                path(certificateFile),
                path(keyFile),
                orNull(keyPassword),
                path(keyStore),
                orNull(keyStorePassword),
                set(keyStoreType) ? keyStoreType : "PKCS12",
                verifyPeer);
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
