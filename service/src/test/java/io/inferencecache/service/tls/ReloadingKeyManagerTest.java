package io.inferencecache.service.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferencecache.service.tls.TestCerts.KeyFormat;
import io.inferencecache.service.tls.TestCerts.Pair;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ReloadingKeyManagerTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private Path cert;
  private Path key;
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private Pair first;
  private Pair second;

  @BeforeEach
  void writeFirstPair() {
    cert = dir.resolve("tls.crt");
    key = dir.resolve("tls.key");
    first = TestCerts.selfSigned("first");
    second = TestCerts.selfSigned("second");
    first.write(cert, key, KeyFormat.PKCS8, T0);
  }

  private ReloadingKeyManager load() {
    return ReloadingKeyManager.load(cert, key, clock::get);
  }

  private static String servedAlias(final ReloadingKeyManager km) {
    return km.chooseEngineServerAlias("RSA", null, null);
  }

  @Test
  void startupLoadFailureIsALoadFailedTlsError() throws Exception {
    Files.writeString(key, "garbage");
    final TlsConfigException e = catchThrowableOfType(TlsConfigException.class, this::load);
    assertThat(e.kind()).isEqualTo(TlsConfigException.Kind.LOAD_FAILED);
    assertThat(e.exitCode()).isEqualTo(1);
    assertThat(e).hasMessageContaining(cert.toString()).hasMessageContaining("no PRIVATE KEY");

    final TlsConfigException missing =
        catchThrowableOfType(
            TlsConfigException.class,
            () -> ReloadingKeyManager.load(dir.resolve("absent.crt"), key));
    assertThat(missing.kind()).isEqualTo(TlsConfigException.Kind.LOAD_FAILED);
  }

  @Test
  void servesTheLoadedPairForTheMatchingKeyTypeOnly() {
    final ReloadingKeyManager km = load();
    final String alias = servedAlias(km);
    assertThat(km.getCertificateChain(alias)).containsExactly(first.cert());
    assertThat(km.getPrivateKey(alias)).isEqualTo(first.key());
    assertThat(km.chooseEngineServerAlias("EC", null, null)).isNull();
    assertThat(km.chooseEngineClientAlias(new String[] {"RSA"}, null, null)).isNull();
  }

  @Test
  void reloadsOnTheNextHandshakeAfterTheCertMtimeAdvances() {
    final ReloadingKeyManager km = load();
    second.write(cert, key, KeyFormat.PKCS8, T0.plusSeconds(5));

    clock.addAndGet(ReloadingKeyManager.CHECK_INTERVAL_NANOS);
    final String alias = servedAlias(km);

    assertThat(km.getCertificateChain(alias)).containsExactly(second.cert());
    assertThat(km.getPrivateKey(alias)).isEqualTo(second.key());
    assertThat(km.currentCertificate()).isEqualTo(second.cert());
  }

  @Test
  void looksAtTheFileAtMostOncePerInterval() {
    final ReloadingKeyManager km = load();
    second.write(cert, key, KeyFormat.PKCS8, T0.plusSeconds(5));

    clock.addAndGet(ReloadingKeyManager.CHECK_INTERVAL_NANOS - 1);
    assertThat(km.getCertificateChain(servedAlias(km))).containsExactly(first.cert());

    clock.addAndGet(1);
    assertThat(km.getCertificateChain(servedAlias(km))).containsExactly(second.cert());
  }

  @Test
  void ignoresContentChangesWhenTheCertMtimeDoesNotAdvance() {
    final ReloadingKeyManager km = load();
    second.write(cert, key, KeyFormat.PKCS8, T0);
    assertThat(km.reloadIfChanged()).isFalse();
    second.write(cert, key, KeyFormat.PKCS8, T0.minusSeconds(60));
    assertThat(km.reloadIfChanged()).isFalse();
    assertThat(km.currentCertificate()).isEqualTo(first.cert());
  }

  @Test
  void failedReloadKeepsTheLastGoodPairAndIsRetriedUntilThePairIsComplete() {
    final ReloadingKeyManager km = load();
    // A rotation that writes the certificate first: cert and key do not match yet.
    second.writeCert(cert, T0.plusSeconds(5));
    assertThat(km.reloadIfChanged()).isFalse();
    assertThat(km.currentCertificate()).isEqualTo(first.cert());
    final String alias = servedAlias(km);
    assertThat(km.getCertificateChain(alias)).containsExactly(first.cert());
    assertThat(km.getPrivateKey(alias)).isEqualTo(first.key());

    // The key lands later; the cert's mtime does not move again.
    second.writeKey(key, KeyFormat.PKCS1);
    assertThat(km.reloadIfChanged()).isTrue();
    assertThat(km.currentCertificate()).isEqualTo(second.cert());
  }

  @Test
  void deletedCertificateKeepsTheLastGoodPair() throws Exception {
    final ReloadingKeyManager km = load();
    Files.delete(cert);
    assertThat(km.reloadIfChanged()).isFalse();
    assertThat(km.getCertificateChain(servedAlias(km))).containsExactly(first.cert());
  }

  @Test
  void handshakeThatSpansAReloadGetsAChainAndKeyFromTheSameGeneration() {
    final ReloadingKeyManager km = load();
    final String before = servedAlias(km);
    second.write(cert, key, KeyFormat.PKCS8, T0.plusSeconds(5));
    assertThat(km.reloadIfChanged()).isTrue();

    assertThat(km.getCertificateChain(before)).containsExactly(first.cert());
    assertThat(km.getPrivateKey(before)).isEqualTo(first.key());
    final String after = servedAlias(km);
    assertThat(after).isNotEqualTo(before);
    assertThat(km.getCertificateChain(after)).containsExactly(second.cert());
    assertThat(km.getCertificateChain("no-such-alias")).isNull();
    assertThat(km.getPrivateKey(null)).isNull();
  }
}
