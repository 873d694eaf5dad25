package io.rangefetch.testing.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A self-signed certificate for a server this JVM starts on the loopback interface: subject alternative
 * names {@code IP:127.0.0.1} and {@code DNS:localhost}, so clients verify the host name as they would
 * for any server, and a client that trusts this one certificate trusts nothing else.
 *
 * <p>Each server start makes a fresh one (an EC P-256 key, which is quick to generate), so no key is
 * checked in and none outlives the run. It is valid from an hour before it was made (clocks of a child
 * process and this JVM agree, but a margin costs nothing) for the validity asked for.
 *
 * <p>BouncyCastle only builds and encodes the certificate; keys, signatures and trust use the JDK's own
 * providers, so nothing is registered JVM-wide. Instances are immutable and thread-safe.
 */
final class LoopbackCertificate {

    /** Trust store type of {@link #writeTrustStore}: readable by every JDK since 9 without a provider. */
    static final String TRUST_STORE_TYPE = "PKCS12";

    private static final String ALIAS = "rangefetch-loopback";

    private final KeyPair keyPair;
    private final X509Certificate certificate;

    private LoopbackCertificate(KeyPair keyPair, X509Certificate certificate) {
        this.keyPair = keyPair;
        this.certificate = certificate;
    }

    /** Makes a new key pair and a certificate for it, valid for {@code validity} from now. */
    static LoopbackCertificate create(Duration validity) {
        requireNonNull(validity, "validity is null");
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("validity must be positive: " + validity);
        }
        try {
            SecureRandom random = new SecureRandom();
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            KeyPair keyPair = generator.generateKeyPair();

            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=localhost, O=Rangefetch tests");
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            subject,
                            new BigInteger(64, random).add(BigInteger.ONE), // positive, as RFC 5280 asks
                            Date.from(now.minus(Duration.ofHours(1))),
                            Date.from(now.plus(validity)),
                            subject,
                            keyPair.getPublic())
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.dNSName, "localhost")
                    }))
                    // a leaf that is its own trust anchor: Go (MinIO, rangefetch-minio-admin) and the JDK both accept
                    // it as such
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(
                            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(
                            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keyPair.getPrivate())));
            return new LoopbackCertificate(keyPair, certificate);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("could not make a self-signed certificate", e);
        }
    }

    /** The certificate, which is also the only trust anchor a client needs for the server. */
    X509Certificate certificate() {
        return certificate;
    }

    /** The certificate in PEM, as {@code public.crt} holds it. */
    String certificatePem() {
        return pem(new PemObject("CERTIFICATE", encoded()));
    }

    /** Trust managers that accept this certificate and nothing else; a new array on each call. */
    TrustManager[] trustManagers() {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trustStore());
            return factory.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(
                    "could not make trust managers for " + certificate.getSubjectX500Principal(), e);
        }
    }

    /** A TLS context for clients that trusts this certificate and nothing else. */
    SSLContext sslContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not make a TLS context", e);
        }
    }

    /**
     * Writes what a server needs: the certificate and its private key (unencrypted PKCS#8), both PEM,
     * the names MinIO looks for in its {@code --certs-dir}. The key file is readable by its owner only.
     */
    void writeServerFiles(Path certificateFile, Path privateKeyFile) throws IOException {
        requireNonNull(certificateFile, "certificateFile is null");
        requireNonNull(privateKeyFile, "privateKeyFile is null");
        Files.writeString(certificateFile, certificatePem(), UTF_8);
        Files.deleteIfExists(privateKeyFile);
        Files.createFile(privateKeyFile);
        restrictToOwner(privateKeyFile);
        Files.writeString(
                privateKeyFile,
                pem(new PemObject("PRIVATE KEY", keyPair.getPrivate().getEncoded())),
                UTF_8);
    }

    /** Writes a {@value #TRUST_STORE_TYPE} trust store holding only this certificate. */
    void writeTrustStore(Path file, char[] password) throws IOException {
        requireNonNull(file, "file is null");
        requireNonNull(password, "password is null");
        try (OutputStream out = Files.newOutputStream(file)) {
            trustStore().store(out, password);
        } catch (GeneralSecurityException e) {
            throw new IOException("could not write the trust store " + file, e);
        }
    }

    private KeyStore trustStore() throws GeneralSecurityException {
        try {
            KeyStore store = KeyStore.getInstance(TRUST_STORE_TYPE);
            store.load(null, null);
            store.setCertificateEntry(ALIAS, certificate);
            return store;
        } catch (IOException e) {
            throw new GeneralSecurityException("could not make an empty key store", e); // loading nothing reads nothing
        }
    }

    private byte[] encoded() {
        try {
            return certificate.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not encode " + certificate.getSubjectX500Principal(), e);
        }
    }

    private static String pem(PemObject object) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new IllegalStateException("could not write PEM to memory", e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void restrictToOwner(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the temporary directory is the user's own already
        }
    }

    @Override
    public String toString() {
        return "self-signed certificate " + certificate.getSubjectX500Principal()
                + " for 127.0.0.1 and localhost, until "
                + certificate.getNotAfter().toInstant();
    }
}
