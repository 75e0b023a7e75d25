package io.inferencecache.controlplane.webhook;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test CA and serving certificates it signs for {@code 127.0.0.1} and {@code localhost}, written
 * as {@code tls.crt}/{@code tls.key} (PKCS#8 PEM) the way cert-manager lays out its Secret.
 */
public final class WebhookCerts {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  final KeyPair caKey;
  final X509Certificate ca;

  public WebhookCerts() throws GeneralSecurityException {
    caKey = ecKey();
    try {
      final X500Name name = new X500Name("CN=inference-cache webhook test CA");
      final JcaX509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(name, serial(), from(), until(), name, caKey.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
      ca = sign(b);
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /**
   * Writes a new serving pair with {@code commonName} into {@code dir}; returns its certificate.
   */
  public X509Certificate writeServing(final Path dir, final String commonName)
      throws GeneralSecurityException, IOException {
    final KeyPair key = ecKey();
    final JcaX509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            new X500Name("CN=inference-cache webhook test CA"),
            serial(),
            from(),
            until(),
            new X500Name("CN=" + commonName),
            key.getPublic());
    b.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")
            }));
    final X509Certificate cert = sign(b);
    Files.createDirectories(dir);
    final Path crt = dir.resolve(WebhookServer.CERT_FILE);
    final Path tmpKey = dir.resolve(".tls.key.tmp");
    Files.writeString(tmpKey, pem("PRIVATE KEY", key.getPrivate().getEncoded()));
    Files.move(
        tmpKey,
        dir.resolve(WebhookServer.KEY_FILE),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(crt, pem("CERTIFICATE", cert.getEncoded()));
    return cert;
  }

  /** The CA as PEM (a webhook configuration's caBundle, before base64). */
  public String caPem() throws GeneralSecurityException {
    return pem("CERTIFICATE", ca.getEncoded());
  }

  /** A client context trusting only this CA. */
  SSLContext clientContext() throws GeneralSecurityException, IOException {
    final KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca);
    final TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    final SSLContext c = SSLContext.getInstance("TLS");
    c.init(null, tmf.getTrustManagers(), null);
    return c;
  }

  private X509Certificate sign(final JcaX509v3CertificateBuilder b)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKey.getPrivate())));
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static KeyPair ecKey() throws GeneralSecurityException {
    final KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIAL.incrementAndGet());
  }

  private static Date from() {
    return Date.from(Instant.now().minus(1, ChronoUnit.HOURS));
  }

  private static Date until() {
    return Date.from(Instant.now().plus(2, ChronoUnit.DAYS));
  }

  static String pem(final String type, final byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
