package io.inferencecache.service.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Self-signed test certificates for {@code localhost} / {@code 127.0.0.1}, written as PEM in the
 * key encodings servers meet in practice (PKCS#8, PKCS#1 RSA, SEC1 EC). BouncyCastle builds the
 * certificate; the JDK's own providers make the keys and signatures.
 */
public final class TestCerts {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  /**
   * RSA key generation takes up to a second here; keys are reused per (algorithm, common name), so
   * pairs with different names never share a key while certificates are always new.
   */
  private static final Map<String, KeyPair> KEYS = new ConcurrentHashMap<>();

  /** Key algorithms the tests use. */
  public enum Algorithm {
    RSA,
    EC,
    ED25519
  }

  /** Private key encodings in PEM. */
  public enum KeyFormat {
    /** {@code PRIVATE KEY}. */
    PKCS8,
    /** {@code RSA PRIVATE KEY} (RSA only). */
    PKCS1,
    /** {@code EC PARAMETERS} then {@code EC PRIVATE KEY} with the curve, as openssl writes it. */
    SEC1
  }

  /** A certificate and its key. */
  public record Pair(X509Certificate cert, PrivateKey key) {
    /** Writes both files (cert first), leaving the cert's mtime at {@code certMtime}. */
    public void write(
        final Path certFile, final Path keyFile, final KeyFormat format, final Instant certMtime) {
      writeCert(certFile, certMtime);
      writeKey(keyFile, format);
    }

    public void writeCert(final Path certFile, final Instant mtime) {
      try {
        Files.writeString(
            certFile, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
        Files.setLastModifiedTime(certFile, FileTime.from(mtime));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    public void writeKey(final Path keyFile, final KeyFormat format) {
      try {
        Files.writeString(keyFile, keyPem(key, format), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private TestCerts() {}

  /** RSA 2048, CN and SAN {@code localhost}, SAN IP {@code 127.0.0.1}, valid for a day. */
  public static Pair selfSigned(final String commonName) {
    return selfSigned(commonName, Algorithm.RSA);
  }

  public static Pair selfSigned(final String commonName, final Algorithm algorithm) {
    try {
      final KeyPair keys =
          KEYS.computeIfAbsent(algorithm + "/" + commonName, k -> newKeyPair(algorithm));
      final X500Name name = new X500Name("CN=" + commonName);
      final Instant now = Instant.now();
      final JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(1))),
              name,
              keys.getPublic());
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")
              }));
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      final String signature =
          switch (algorithm) {
            case RSA -> "SHA256withRSA";
            case EC -> "SHA256withECDSA";
            case ED25519 -> "Ed25519";
          };
      final X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
      return new Pair(cert, keys.getPrivate());
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair newKeyPair(final Algorithm algorithm) {
    try {
      return keyPair(algorithm);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair keyPair(final Algorithm algorithm) throws GeneralSecurityException {
    switch (algorithm) {
      case RSA:
        final KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        return rsa.generateKeyPair();
      case EC:
        final KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(new ECGenParameterSpec("secp256r1"));
        return ec.generateKeyPair();
      case ED25519:
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
      default:
        throw new IllegalArgumentException(algorithm.name());
    }
  }

  public static String keyPem(final PrivateKey key, final KeyFormat format) {
    try {
      final byte[] pkcs8 = key.getEncoded();
      switch (format) {
        case PKCS8:
          return pem("PRIVATE KEY", pkcs8);
        case PKCS1:
          return pem(
              "RSA PRIVATE KEY",
              PrivateKeyInfo.getInstance(pkcs8).parsePrivateKey().toASN1Primitive().getEncoded());
        case SEC1:
          final PrivateKeyInfo info = PrivateKeyInfo.getInstance(pkcs8);
          final ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
          final ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
          final ECPrivateKey withCurve = new ECPrivateKey(256, inner.getKey(), curve);
          return pem("EC PARAMETERS", curve.toASN1Primitive().getEncoded())
              + pem("EC PRIVATE KEY", withCurve.getEncoded());
        default:
          throw new IllegalArgumentException(format.name());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String pem(final String type, final byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
