package io.inferencecache.service.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A certificate chain and its private key read from PEM files, with the checks Go's {@code
 * tls.LoadX509KeyPair} makes: at least one {@code CERTIFICATE} block, one unencrypted private key
 * in PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE
 * KEY}) form, and a key that matches the leaf certificate's public key. Other PEM blocks (e.g.
 * {@code EC PARAMETERS}) are skipped. RSA, EC and EdDSA keys are supported.
 *
 * <p>Immutable; thread-safe. Not part of the public API.
 */
final class PemKeyPair {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\R?(.*?)-----END \\1-----", Pattern.DOTALL);

  private static final byte[] OID_RSA_ENCRYPTION = {
    0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
  };
  private static final byte[] OID_EC_PUBLIC_KEY = {
    0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };

  private static final int TAG_INTEGER = 0x02;
  private static final int TAG_OCTET_STRING = 0x04;
  private static final int TAG_NULL = 0x05;
  private static final int TAG_OID = 0x06;
  private static final int TAG_SEQUENCE = 0x30;
  private static final int TAG_CONTEXT_0 = 0xa0;

  private final X509Certificate[] chain;
  private final PrivateKey key;

  private PemKeyPair(final X509Certificate[] chain, final PrivateKey key) {
    this.chain = chain;
    this.key = key;
  }

  /** The chain, leaf first. A copy. */
  X509Certificate[] chain() {
    return chain.clone();
  }

  /** The private key of the leaf. */
  PrivateKey key() {
    return key;
  }

  /** The leaf certificate. */
  X509Certificate leaf() {
    return chain[0];
  }

  /**
   * Reads and checks the pair.
   *
   * @throws IOException when a file cannot be read
   * @throws GeneralSecurityException when the content is not a usable, matching key pair
   */
  static PemKeyPair load(final Path certFile, final Path keyFile)
      throws IOException, GeneralSecurityException {
    final X509Certificate[] chain = readCertificates(certFile);
    final PrivateKey key = readPrivateKey(keyFile);
    requireMatch(chain[0], key);
    return new PemKeyPair(chain, key);
  }

  private static X509Certificate[] readCertificates(final Path file)
      throws IOException, GeneralSecurityException {
    final CertificateFactory factory = CertificateFactory.getInstance("X.509");
    final List<X509Certificate> certs = new ArrayList<>();
    for (final Block block : blocks(file)) {
      if (block.type().equals("CERTIFICATE")) {
        certs.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
      }
    }
    if (certs.isEmpty()) {
      throw new GeneralSecurityException("no CERTIFICATE PEM block in " + file);
    }
    return certs.toArray(new X509Certificate[0]);
  }

  private static PrivateKey readPrivateKey(final Path file)
      throws IOException, GeneralSecurityException {
    for (final Block block : blocks(file)) {
      switch (block.type()) {
        case "PRIVATE KEY":
          return pkcs8(block.der(), file);
        case "RSA PRIVATE KEY":
          requireUnencrypted(block, file);
          return pkcs8(wrapPkcs1(block.der()), file);
        case "EC PRIVATE KEY":
          requireUnencrypted(block, file);
          return pkcs8(wrapSec1(block.der(), file), file);
        case "ENCRYPTED PRIVATE KEY":
          throw new GeneralSecurityException(
              "encrypted private key in " + file + " is not supported");
        default:
          // Skip blocks such as "EC PARAMETERS", as Go does.
      }
    }
    throw new GeneralSecurityException("no PRIVATE KEY PEM block in " + file);
  }

  private static void requireUnencrypted(final Block block, final Path file)
      throws GeneralSecurityException {
    if (block.encrypted()) {
      throw new GeneralSecurityException("encrypted private key in " + file + " is not supported");
    }
  }

  private static PrivateKey pkcs8(final byte[] der, final Path file)
      throws GeneralSecurityException {
    final PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (final String algorithm : new String[] {"RSA", "EC", "EdDSA"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException wrongAlgorithm) {
        // try the next one
      }
    }
    throw new GeneralSecurityException(
        "unsupported or malformed private key in " + file + " (RSA, EC or Ed25519 expected)");
  }

  /** Checks that {@code key} belongs to {@code leaf}, by comparing or by signing. */
  private static void requireMatch(final X509Certificate leaf, final PrivateKey key)
      throws GeneralSecurityException {
    final PublicKey publicKey = leaf.getPublicKey();
    final String algorithm = key.getAlgorithm();
    if (!sameFamily(publicKey.getAlgorithm(), algorithm)) {
      throw new GeneralSecurityException(
          "private key type ("
              + algorithm
              + ") does not match public key type ("
              + publicKey.getAlgorithm()
              + ")");
    }
    if (key instanceof RSAKey && publicKey instanceof RSAKey) {
      if (!((RSAKey) key).getModulus().equals(((RSAKey) publicKey).getModulus())) {
        throw new GeneralSecurityException("private key does not match public key");
      }
      return;
    }
    final String signatureAlgorithm = "EC".equals(algorithm) ? "SHA256withECDSA" : "EdDSA";
    final byte[] probe = new byte[32];
    new SecureRandom().nextBytes(probe);
    final Signature signer = Signature.getInstance(signatureAlgorithm);
    signer.initSign(key);
    signer.update(probe);
    final byte[] signature = signer.sign();
    final Signature verifier = Signature.getInstance(signatureAlgorithm);
    verifier.initVerify(publicKey);
    verifier.update(probe);
    if (!verifier.verify(signature)) {
      throw new GeneralSecurityException("private key does not match public key");
    }
  }

  private static boolean sameFamily(final String publicAlgorithm, final String privateAlgorithm) {
    return family(publicAlgorithm).equals(family(privateAlgorithm));
  }

  private static String family(final String algorithm) {
    switch (algorithm) {
      case "Ed25519":
      case "Ed448":
        return "EdDSA";
      case "RSASSA-PSS":
        return "RSA";
      default:
        return algorithm;
    }
  }

  // ---- PEM ----

  private record Block(String type, byte[] der, boolean encrypted) {}

  private static List<Block> blocks(final Path file) throws IOException, GeneralSecurityException {
    final String text = Files.readString(file, StandardCharsets.US_ASCII);
    final Matcher matcher = BLOCK.matcher(text);
    final List<Block> blocks = new ArrayList<>();
    while (matcher.find()) {
      // RFC 1421 headers (e.g. "Proc-Type: 4,ENCRYPTED") are the lines with a colon.
      final StringBuilder body = new StringBuilder();
      boolean encrypted = false;
      for (final String line : matcher.group(2).split("\\R")) {
        if (line.indexOf(':') >= 0) {
          encrypted |= line.contains("ENCRYPTED");
        } else {
          body.append(line.trim());
        }
      }
      final byte[] der;
      try {
        der = Base64.getMimeDecoder().decode(body.toString());
      } catch (IllegalArgumentException e) {
        throw new GeneralSecurityException(
            "malformed base64 in " + matcher.group(1) + " PEM block of " + file, e);
      }
      blocks.add(new Block(matcher.group(1), der, encrypted));
    }
    return blocks;
  }

  // ---- minimal DER, enough to wrap PKCS#1 / SEC1 keys into PKCS#8 ----

  /**
   * {@code PrivateKeyInfo ::= SEQUENCE { version 0, AlgorithmIdentifier { rsaEncryption, NULL },
   * OCTET STRING pkcs1 }}.
   */
  private static byte[] wrapPkcs1(final byte[] pkcs1) {
    final byte[] algorithm =
        tlv(TAG_SEQUENCE, concat(tlv(TAG_OID, OID_RSA_ENCRYPTION), tlv(TAG_NULL, new byte[0])));
    return tlv(
        TAG_SEQUENCE,
        concat(tlv(TAG_INTEGER, new byte[] {0}), algorithm, tlv(TAG_OCTET_STRING, pkcs1)));
  }

  /**
   * {@code PrivateKeyInfo ::= SEQUENCE { version 0, AlgorithmIdentifier { ecPublicKey, curve },
   * OCTET STRING sec1 }}, the curve taken from the SEC1 key's {@code [0] parameters}.
   */
  private static byte[] wrapSec1(final byte[] sec1, final Path file)
      throws GeneralSecurityException {
    final byte[] curve = sec1NamedCurve(sec1, file);
    final byte[] algorithm =
        tlv(TAG_SEQUENCE, concat(tlv(TAG_OID, OID_EC_PUBLIC_KEY), tlv(TAG_OID, curve)));
    return tlv(
        TAG_SEQUENCE,
        concat(tlv(TAG_INTEGER, new byte[] {0}), algorithm, tlv(TAG_OCTET_STRING, sec1)));
  }

  /**
   * {@code ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, parameters [0]
   * ECParameters OPTIONAL, publicKey [1] BIT STRING OPTIONAL }}: returns the named-curve OID.
   */
  private static byte[] sec1NamedCurve(final byte[] sec1, final Path file)
      throws GeneralSecurityException {
    try {
      final Der outer = new Der(sec1, 0);
      if (outer.tag != TAG_SEQUENCE || outer.end != sec1.length) {
        throw new GeneralSecurityException("malformed EC PRIVATE KEY in " + file);
      }
      int at = outer.contentStart;
      while (at < outer.end) {
        final Der element = new Der(sec1, at);
        if (element.tag == TAG_CONTEXT_0) {
          final Der oid = new Der(sec1, element.contentStart);
          if (oid.tag != TAG_OID) {
            break;
          }
          final byte[] value = new byte[oid.end - oid.contentStart];
          System.arraycopy(sec1, oid.contentStart, value, 0, value.length);
          return value;
        }
        at = element.end;
      }
    } catch (IndexOutOfBoundsException e) {
      throw new GeneralSecurityException("malformed EC PRIVATE KEY in " + file, e);
    }
    throw new GeneralSecurityException("EC PRIVATE KEY in " + file + " names no curve");
  }

  /** One DER element header at {@code offset}. */
  private static final class Der {
    final int tag;
    final int contentStart;
    final int end;

    Der(final byte[] der, final int offset) throws GeneralSecurityException {
      tag = der[offset] & 0xff;
      int at = offset + 1;
      int length = der[at++] & 0xff;
      if (length >= 0x80) {
        final int bytes = length & 0x7f;
        if (bytes == 0 || bytes > 3) {
          throw new GeneralSecurityException("unsupported DER length");
        }
        length = 0;
        for (int i = 0; i < bytes; i++) {
          length = (length << 8) | (der[at++] & 0xff);
        }
      }
      contentStart = at;
      end = at + length;
      if (end > der.length) {
        throw new GeneralSecurityException("truncated DER");
      }
    }
  }

  private static byte[] tlv(final int tag, final byte[] content) {
    final ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    final int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      final byte[] digits = BigInteger.valueOf(length).toByteArray();
      final int skip = digits[0] == 0 ? 1 : 0;
      out.write(0x80 | (digits.length - skip));
      out.write(digits, skip, digits.length - skip);
    }
    out.write(content, 0, length);
    return out.toByteArray();
  }

  private static byte[] concat(final byte[]... parts) {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (final byte[] part : parts) {
      out.write(part, 0, part.length);
    }
    return out.toByteArray();
  }
}
