package io.delaybridge.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away certificate authority and the certificates signed by it, made with {@code openssl} and {@code keytool}
 * in a directory of the test's: for TLS servers (redis-server {@code --tls-port}, a Kafka {@code SASL_SSL} listener)
 * and the clients that talk to them. EC P-256 keys, valid for two days.
 *
 * <pre>{@code
 * TestCertificates tls = TestCertificates.create(tempDir);
 * RedisServer redis = RedisServer.startTls(tempDir.resolve("redis"), tls, List.of());
 * // the client trusts tls.caFile() (or tls.trustStore() with tls.password()) and shows
 * // tls.clientCertificate() + tls.clientKey() (or tls.clientKeyStore())
 * }</pre>
 *
 * <p>Files: {@code ca.pem}; {@code server.pem}/{@code server.key} (names {@code localhost} and {@code 127.0.0.1}) and
 * {@code server.p12}; {@code client.pem}/{@code client.key} (CN {@code delay-bridge}, PKCS#8) and {@code client.p12};
 * {@code elsewhere.pem}/{@code elsewhere.key} (names only {@code redis.example}); {@code truststore.p12} (the CA); and from a second CA that nobody trusts, {@code stranger.pem}/{@code
 * stranger.key} (a client certificate a server must refuse) and {@code stranger-ca.pem}. Every store has the
 * password {@link #password()}.
 */
public final class TestCertificates {

    private static final String PASSWORD = "test-store-secret";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** Makes the CA and every certificate in {@code dir} (created if missing); a few hundred milliseconds. */
    public static TestCertificates create(Path dir) {
        try {
            Files.createDirectories(dir);
            TestCertificates certs = new TestCertificates(dir);
            certs.makeCa("ca", "delay-bridge test CA");
            certs.makeCa("stranger-ca", "a CA nobody trusts");
            certs.makeSigned(
                    "server",
                    "localhost",
                    "ca",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1\n" + "extendedKeyUsage=serverAuth,clientAuth\n");
            certs.makeSigned(
                    "elsewhere",
                    "redis.example",
                    "ca",
                    "subjectAltName=DNS:redis.example\n" + "extendedKeyUsage=serverAuth\n");
            certs.makeSigned("client", "delay-bridge", "ca", "extendedKeyUsage=clientAuth\n");
            certs.makeSigned("stranger", "delay-bridge", "stranger-ca", "extendedKeyUsage=clientAuth\n");
            certs.run(
                    "openssl",
                    "pkcs12",
                    "-export",
                    "-in",
                    "server.pem",
                    "-inkey",
                    "server.key",
                    "-certfile",
                    "ca.pem",
                    "-name",
                    "server",
                    "-out",
                    "server.p12",
                    "-passout",
                    "pass:" + PASSWORD);
            certs.run(
                    "openssl",
                    "pkcs12",
                    "-export",
                    "-in",
                    "client.pem",
                    "-inkey",
                    "client.key",
                    "-certfile",
                    "ca.pem",
                    "-name",
                    "client",
                    "-out",
                    "client.p12",
                    "-passout",
                    "pass:" + PASSWORD);
            certs.run(
                    "keytool",
                    "-importcert",
                    "-noprompt",
                    "-alias",
                    "ca",
                    "-file",
                    "ca.pem",
                    "-keystore",
                    "truststore.p12",
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    PASSWORD);
            return certs;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make test certificates in " + dir, e);
        }
    }

    private void makeCa(String name, String cn) throws IOException {
        run(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".pem",
                "-days",
                "2",
                "-subj",
                "/CN=" + cn,
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign");
    }

    private void makeSigned(String name, String cn, String ca, String extensions) throws IOException {
        run(
                "openssl",
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".csr",
                "-subj",
                "/CN=" + cn);
        Files.writeString(dir.resolve(name + ".ext"), extensions, StandardCharsets.US_ASCII);
        run(
                "openssl",
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                ca + ".pem",
                "-CAkey",
                ca + ".key",
                "-CAcreateserial",
                "-out",
                name + ".pem",
                "-days",
                "2",
                "-extfile",
                name + ".ext");
    }

    private void run(String... command) throws IOException {
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        Process process = builder.start();
        try (InputStream out = process.getInputStream()) {
            String text = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException(String.join(" ", redacted(command)) + " failed: " + text);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            process.destroy();
        }
    }

    private static List<String> redacted(String... command) {
        List<String> words = new ArrayList<>();
        for (String word : command) {
            words.add(word.contains(PASSWORD) ? word.replace(PASSWORD, "***") : word);
        }
        return words;
    }

    /** The password of every key store here. */
    public String password() {
        return PASSWORD;
    }

    public Path dir() {
        return dir;
    }

    /** PEM certificate of the CA that signed the server and client certificates. */
    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    /** PKCS12 store with the CA certificate, password {@link #password()}. */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    public Path serverCertificate() {
        return dir.resolve("server.pem");
    }

    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** PKCS12 store with the server's key and certificate chain, password {@link #password()}. */
    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    /** A server certificate (with {@code elsewhere.key}) for {@code redis.example} only: a host name mismatch. */
    public Path elsewhereCertificate() {
        return dir.resolve("elsewhere.pem");
    }

    public Path elsewhereKey() {
        return dir.resolve("elsewhere.key");
    }

    public Path clientCertificate() {
        return dir.resolve("client.pem");
    }

    /** PKCS#8 PEM key of {@link #clientCertificate()}, unencrypted. */
    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** PKCS12 store with the client's key and certificate chain, password {@link #password()}. */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    /** A client certificate signed by a CA that no server here trusts. */
    public Path strangerCertificate() {
        return dir.resolve("stranger.pem");
    }

    public Path strangerKey() {
        return dir.resolve("stranger.key");
    }

    /** The PEM certificate of the CA nobody trusts. */
    public Path strangerCa() {
        return dir.resolve("stranger-ca.pem");
    }

    /** A client context that trusts the CA and shows the client certificate: what the kit's own probes use. */
    public SSLContext clientContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(trustStore())) {
                trust.load(in, PASSWORD.toCharArray());
            }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(clientKeyStore())) {
                keys.load(in, PASSWORD.toCharArray());
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, PASSWORD.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Cannot build a TLS context from " + dir, e);
        }
    }

    /**
     * redis-server arguments for TLS only on {@code port}: no plain port, client certificates required, and TLS
     * for replication and the cluster bus too.
     */
    public List<String> redisServerArgs(int port) {
        return List.of(
                "--port",
                "0",
                "--tls-port",
                Integer.toString(port),
                "--tls-cert-file",
                serverCertificate().toString(),
                "--tls-key-file",
                serverKey().toString(),
                "--tls-ca-cert-file",
                caFile().toString(),
                "--tls-auth-clients",
                "yes",
                "--tls-replication",
                "yes",
                "--tls-cluster",
                "yes");
    }
}
