package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS to Redis from files named in the configuration, not from JVM-wide {@code javax.net.ssl.*} properties (the
 * bridge talks TLS to Kafka too). Whether TLS is on is the URI's business ({@code rediss://},
 * {@code rediss-sentinel://}); this says whom to trust, which certificate to show, and how strictly to check.
 *
 * <p>Trust: a PEM file of CA certificates ({@code caFile}) or a key store ({@code trustStore}, its password and
 * type); neither means the JVM's default trust store. Client certificate (servers with {@code tls-auth-clients
 * yes}): a PEM certificate chain with its PKCS#8 key ({@code certificateFile}, {@code keyFile}, {@code keyPassword}
 * if the key is encrypted) or a key store ({@code keyStore}, password, type). The files are read when the store
 * connects, so a wrong password or an unreadable file stops start-up naming its setting. Passwords never appear
 * in {@link #toString()} or in a message.
 *
 * @param caFile PEM file of the certificates to trust, or null
 * @param trustStore key store of the certificates to trust, or null
 * @param trustStorePassword its password, or null
 * @param trustStoreType its type, e.g. {@code PKCS12} or {@code JKS}
 * @param certificateFile PEM client certificate chain (own certificate first), or null
 * @param keyFile PEM PKCS#8 private key of that certificate ({@code BEGIN PRIVATE KEY} or {@code BEGIN ENCRYPTED
 *     PRIVATE KEY}), or null
 * @param keyPassword the key's password if it is encrypted, or null
 * @param keyStore key store holding the client certificate and key, or null
 * @param keyStorePassword its password (also the key's), or null
 * @param keyStoreType its type
 * @param verify how much of the server's certificate to check
 */
public record RedisTls(
        Path caFile,
        Path trustStore,
        String trustStorePassword,
        String trustStoreType,
        Path certificateFile,
        Path keyFile,
        String keyPassword,
        Path keyStore,
        String keyStorePassword,
        String keyStoreType,
        Verify verify) {

    /** No TLS settings: a {@code rediss://} URI then trusts the JVM's default CAs and shows no client certificate. */
    public static final RedisTls DEFAULTS =
            new RedisTls(null, null, null, "PKCS12", null, null, null, null, null, "PKCS12", Verify.FULL);

    /** The password of the in-memory key store made from PEM files; never written anywhere. */
    private static final char[] IN_MEMORY = "in-memory".toCharArray();

    private static final Pattern PEM_KEY = Pattern.compile(
            "-----BEGIN (ENCRYPTED )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END (ENCRYPTED )?PRIVATE KEY-----");

    /** How the server's certificate is checked. */
    public enum Verify {
        /** Signed by a trusted CA, and the host name of the URI is among its names (the default). */
        FULL(SslVerifyMode.FULL),
        /** Signed by a trusted CA; any host name. */
        CA(SslVerifyMode.CA),
        /** Not checked at all: encryption without authentication. For tests only. */
        NONE(SslVerifyMode.NONE);

        private final SslVerifyMode lettuce;

        Verify(SslVerifyMode lettuce) {
            this.lettuce = lettuce;
        }

        public SslVerifyMode lettuce() {
            return lettuce;
        }
    }

    public RedisTls {
        if (caFile != null && trustStore != null) {
            throw new IllegalArgumentException("give either caFile or trustStore, not both");
        }
        if ((certificateFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("give certificateFile and keyFile together");
        }
        if (certificateFile != null && keyStore != null) {
            throw new IllegalArgumentException("give either certificateFile and keyFile or keyStore, not both");
        }
        trustStoreType = trustStoreType == null ? "PKCS12" : trustStoreType;
        keyStoreType = keyStoreType == null ? "PKCS12" : keyStoreType;
        verify = verify == null ? Verify.FULL : verify;
    }

    /** Whether a client certificate is configured. */
    public boolean hasClientCertificate() {
        return certificateFile != null || keyStore != null;
    }

    /** Whether any trust or key material is configured (the defaults otherwise). */
    public boolean configured() {
        return caFile != null || trustStore != null || hasClientCertificate();
    }

    /** The setting that holds the trust material, for messages. */
    String trustSetting() {
        return caFile != null
                ? "redis.tls.caFile (" + caFile + ")"
                : trustStore != null
                        ? "redis.tls.trustStore (" + trustStore + ")"
                        : "the JVM's default trust store (set redis.tls.caFile or redis.tls.trustStore)";
    }

    /** The setting that holds the client certificate, for messages. */
    String certificateSetting() {
        return certificateFile != null
                ? "redis.tls.certificateFile (" + certificateFile + ")"
                : keyStore != null
                        ? "redis.tls.keyStore (" + keyStore + ")"
                        : "no client certificate (set redis.tls.certificateFile and redis.tls.keyFile, or redis.tls.keyStore)";
    }

    /**
     * Lettuce's TLS options, the files read now.
     *
     * @throws StoreConfigurationException naming the setting whose file is missing, unreadable, holds nothing usable
     *     or has another password
     */
    public SslOptions sslOptions() {
        SslOptions.Builder builder = SslOptions.builder().jdkSslProvider();
        if (caFile != null) {
            builder.trustManager(trustManagers(pemTrustStore()));
        } else if (trustStore != null) {
            builder.trustManager(trustManagers(loadStore(
                    trustStore,
                    trustStorePassword,
                    trustStoreType,
                    "redis.tls.trustStore",
                    "redis.tls.trustStorePassword",
                    "redis.tls.trustStoreType")));
        }
        if (certificateFile != null) {
            builder.keyManager(keyManagers(pemKeyStore(), IN_MEMORY, "redis.tls.keyFile"));
        } else if (keyStore != null) {
            KeyStore store = loadStore(
                    keyStore,
                    keyStorePassword,
                    keyStoreType,
                    "redis.tls.keyStore",
                    "redis.tls.keyStorePassword",
                    "redis.tls.keyStoreType");
            builder.keyManager(keyManagers(store, chars(keyStorePassword), "redis.tls.keyStorePassword"));
        }
        return builder.build();
    }

    private TrustManagerFactory trustManagers(KeyStore store) {
        try {
            if (store.size() == 0) {
                throw new StoreConfigurationException(
                        trustSetting() + " holds no certificate to trust"
                                + (trustStore != null && trustStorePassword == null
                                        ? ": a PKCS12 store hides its certificates without its password; set"
                                                + " redis.tls.trustStorePassword (REDIS_TLS_TRUSTSTORE_PASSWORD)"
                                        : ": put the CA certificate that signed Redis's certificate in it")
                                + ".",
                        null);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory;
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(trustSetting() + " cannot be used: " + e.getMessage() + ".", e);
        }
    }

    private KeyManagerFactory keyManagers(KeyStore store, char[] password, String passwordSetting) {
        try {
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        } catch (UnrecoverableKeyException e) {
            throw new StoreConfigurationException(
                    certificateSetting() + ": its private key cannot be read with the" + " password of "
                            + passwordSetting + ". Set the key's password there.",
                    e);
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(certificateSetting() + " cannot be used: " + e.getMessage() + ".", e);
        }
    }

    private KeyStore pemTrustStore() {
        List<Certificate> certificates = readCertificates(caFile, "redis.tls.caFile");
        KeyStore store = emptyStore();
        try {
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("ca-" + i, certificates.get(i));
            }
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    "redis.tls.caFile (" + caFile + ") cannot be used: " + e.getMessage() + ".", e);
        }
        return store;
    }

    private KeyStore pemKeyStore() {
        List<Certificate> chain = readCertificates(certificateFile, "redis.tls.certificateFile");
        PrivateKey key = readKey();
        KeyStore store = emptyStore();
        try {
            store.setKeyEntry("client", key, IN_MEMORY, chain.toArray(new Certificate[0]));
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    "redis.tls.keyFile (" + keyFile + ") does not belong to" + " redis.tls.certificateFile ("
                            + certificateFile + "): " + e.getMessage() + ".",
                    e);
        }
        return store;
    }

    private static List<Certificate> readCertificates(Path file, String setting) {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> read =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (read.isEmpty()) {
                throw new StoreConfigurationException(
                        setting + " (" + file + ") holds no certificate: give a PEM"
                                + " file with -----BEGIN CERTIFICATE----- blocks.",
                        null);
            }
            return new ArrayList<>(read);
        } catch (IOException e) {
            throw unreadable(setting, file, e);
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    setting + " (" + file + ") is not a PEM certificate file: " + e.getMessage() + ".", e);
        }
    }

    private PrivateKey readKey() {
        String text;
        try {
            text = Files.readString(keyFile, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw unreadable("redis.tls.keyFile", keyFile, e);
        }
        Matcher pem = PEM_KEY.matcher(text);
        if (!pem.find()) {
            throw new StoreConfigurationException(
                    "redis.tls.keyFile (" + keyFile + ") holds no PKCS#8 key (-----BEGIN"
                            + " PRIVATE KEY-----). Convert it: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key8.pem.",
                    null);
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.group(2));
        try {
            if (pem.group(1) != null) {
                if (keyPassword == null) {
                    throw new StoreConfigurationException(
                            "redis.tls.keyFile (" + keyFile + ") is encrypted: set"
                                    + " redis.tls.keyPassword (REDIS_TLS_KEY_PASSWORD).",
                            null);
                }
                EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
                SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
                try {
                    der = info.getKeySpec(factory.generateSecret(new PBEKeySpec(keyPassword.toCharArray())))
                            .getEncoded();
                } catch (InvalidKeySpecException e) {
                    throw new StoreConfigurationException(
                            "redis.tls.keyFile (" + keyFile + ") cannot be decrypted"
                                    + " with redis.tls.keyPassword: check the password.",
                            e);
                }
            }
            for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "EdDSA"}) {
                try {
                    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
                } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                    // try the next algorithm
                }
            }
        } catch (IOException | GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    "redis.tls.keyFile (" + keyFile + ") cannot be read: " + e.getMessage() + ".", e);
        }
        throw new StoreConfigurationException(
                "redis.tls.keyFile (" + keyFile + ") is not an RSA, EC or EdDSA key.", null);
    }

    private static KeyStore loadStore(
            Path file, String password, String type, String setting, String passwordSetting, String typeSetting) {
        KeyStore store;
        try {
            store = KeyStore.getInstance(type);
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    typeSetting + " is \"" + type + "\": not a key store type this JVM" + " knows. Use PKCS12 or JKS.",
                    e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, chars(password));
            return store;
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException
                    || String.valueOf(e.getMessage()).contains("password")) {
                throw new StoreConfigurationException(
                        setting + " (" + file + ") cannot be opened with " + passwordSetting
                                + (password == null ? " (not set)" : "") + ": check the password.",
                        e);
            }
            if (!Files.isReadable(file)) {
                throw unreadable(setting, file, e);
            }
            throw new StoreConfigurationException(
                    setting + " (" + file + ") is not a " + type + " key store (" + e.getMessage()
                            + "). Check the file, or set " + typeSetting + ".",
                    e);
        } catch (GeneralSecurityException e) {
            throw new StoreConfigurationException(
                    setting + " (" + file + ") cannot be loaded: " + e.getMessage() + ".", e);
        }
    }

    private static KeyStore emptyStore() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("This JVM has no PKCS12 key store", e);
        }
    }

    private static StoreConfigurationException unreadable(String setting, Path file, IOException e) {
        return new StoreConfigurationException(
                setting + " is " + file + ", which cannot be read ("
                        + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                        + "). Check the path and the file's permissions.",
                e);
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }

    @Override
    public String toString() {
        return "RedisTls[caFile=" + caFile + ", trustStore=" + trustStore + ", trustStorePassword="
                + (trustStorePassword == null ? "none" : "***") + ", trustStoreType=" + trustStoreType
                + ", certificateFile=" + certificateFile + ", keyFile=" + keyFile + ", keyPassword="
                + (keyPassword == null ? "none" : "***") + ", keyStore=" + keyStore + ", keyStorePassword="
                + (keyStorePassword == null ? "none" : "***") + ", keyStoreType=" + keyStoreType + ", verify="
                + verify + "]";
    }
}
