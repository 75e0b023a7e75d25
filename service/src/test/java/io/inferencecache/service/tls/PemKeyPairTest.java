package io.inferencecache.service.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.service.tls.TestCerts.Algorithm;
import io.inferencecache.service.tls.TestCerts.KeyFormat;
import io.inferencecache.service.tls.TestCerts.Pair;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.interfaces.ECPrivateKey;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(30)
class PemKeyPairTest {
  @TempDir Path dir;

  private Path cert() {
    return dir.resolve("tls.crt");
  }

  private Path key() {
    return dir.resolve("tls.key");
  }

  @ParameterizedTest(name = "{0} key as {1}")
  @CsvSource({"RSA, PKCS8", "RSA, PKCS1", "EC, PKCS8", "EC, SEC1", "ED25519, PKCS8"})
  void loadsTheKeyEncodingsGoAccepts(final Algorithm algorithm, final KeyFormat format)
      throws Exception {
    final Pair pair = TestCerts.selfSigned("localhost", algorithm);
    pair.write(cert(), key(), format, Instant.now());

    final PemKeyPair loaded = PemKeyPair.load(cert(), key());

    assertThat(loaded.leaf()).isEqualTo(pair.cert());
    if (pair.key() instanceof ECPrivateKey) {
      // SEC1 carries the curve inside the key too, so compare the secret, not the encoding.
      assertThat(((ECPrivateKey) loaded.key()).getS())
          .isEqualTo(((ECPrivateKey) pair.key()).getS());
    } else {
      assertThat(loaded.key().getEncoded()).isEqualTo(pair.key().getEncoded());
    }
  }

  @Test
  void keepsTheWholeChainLeafFirstAndSkipsForeignBlocks() throws Exception {
    final Pair leaf = TestCerts.selfSigned("leaf");
    final Pair other = TestCerts.selfSigned("intermediate");
    Files.writeString(
        cert(),
        "subject=CN = leaf\n"
            + TestCerts.pem("CERTIFICATE", leaf.cert().getEncoded())
            + TestCerts.pem("X509 CRL", new byte[] {1, 2, 3})
            + TestCerts.pem("CERTIFICATE", other.cert().getEncoded()));
    leaf.writeKey(key(), KeyFormat.PKCS8);

    final PemKeyPair loaded = PemKeyPair.load(cert(), key());

    assertThat(loaded.chain()).containsExactly(leaf.cert(), other.cert());
  }

  @Test
  void rejectsAKeyThatDoesNotBelongToTheCertificate() {
    final Pair a = TestCerts.selfSigned("a");
    final Pair b = TestCerts.selfSigned("b");
    a.writeCert(cert(), Instant.now());
    b.writeKey(key(), KeyFormat.PKCS8);

    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessage("private key does not match public key");
  }

  @Test
  void rejectsAnEcKeyThatDoesNotBelongToTheCertificate() {
    final Pair a = TestCerts.selfSigned("a", Algorithm.EC);
    final Pair b = TestCerts.selfSigned("b", Algorithm.EC);
    a.writeCert(cert(), Instant.now());
    b.writeKey(key(), KeyFormat.SEC1);

    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessage("private key does not match public key");
  }

  @Test
  void rejectsAKeyOfAnotherAlgorithm() {
    final Pair rsa = TestCerts.selfSigned("a", Algorithm.RSA);
    final Pair ec = TestCerts.selfSigned("b", Algorithm.EC);
    rsa.writeCert(cert(), Instant.now());
    ec.writeKey(key(), KeyFormat.PKCS8);

    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("does not match public key type");
  }

  @Test
  void rejectsFilesWithoutTheExpectedBlocks() throws Exception {
    final Pair pair = TestCerts.selfSigned("a");
    Files.writeString(cert(), "not a certificate\n");
    pair.writeKey(key(), KeyFormat.PKCS8);
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageStartingWith("no CERTIFICATE PEM block in ");

    pair.writeCert(cert(), Instant.now());
    Files.writeString(key(), TestCerts.pem("CERTIFICATE", pair.cert().getEncoded()));
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageStartingWith("no PRIVATE KEY PEM block in ");
  }

  @Test
  void rejectsEncryptedKeys() throws Exception {
    final Pair pair = TestCerts.selfSigned("a");
    pair.writeCert(cert(), Instant.now());
    Files.writeString(key(), TestCerts.pem("ENCRYPTED PRIVATE KEY", new byte[] {0x30, 0}));
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .hasMessageContaining("encrypted private key");

    final String pkcs1 = TestCerts.keyPem(pair.key(), KeyFormat.PKCS1);
    Files.writeString(
        key(),
        pkcs1.replace(
            "-----BEGIN RSA PRIVATE KEY-----\n",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n"),
        StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .hasMessageContaining("encrypted private key");
  }

  @Test
  void rejectsGarbageInsideAKeyBlock() throws Exception {
    final Pair pair = TestCerts.selfSigned("a");
    pair.writeCert(cert(), Instant.now());
    Files.writeString(key(), TestCerts.pem("PRIVATE KEY", new byte[] {1, 2, 3, 4}));
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("unsupported or malformed private key");

    Files.writeString(
        key(), TestCerts.pem("EC PRIVATE KEY", new byte[] {0x30, 0x03, 0x02, 0x01, 0x01}));
    assertThatThrownBy(() -> PemKeyPair.load(cert(), key()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("names no curve");
  }

  @Test
  void missingFileIsAnIoError() {
    assertThatThrownBy(() -> PemKeyPair.load(dir.resolve("absent.crt"), key()))
        .isInstanceOf(java.io.IOException.class);
  }
}
