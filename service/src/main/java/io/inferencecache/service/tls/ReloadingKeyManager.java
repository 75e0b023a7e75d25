package io.inferencecache.service.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server key manager that serves the PEM pair from {@code certFile}/{@code keyFile} and reloads it
 * when the certificate file's modification time advances (dataplane docs/behaviour.md#tls).
 *
 * <p>On a server handshake it checks the cert file's mtime, at most once per {@link
 * #CHECK_INTERVAL_NANOS}; if the mtime is newer than the one last loaded it reads both files again
 * and, if they form a valid matching pair, serves the new pair to this and later handshakes. A
 * failed reload keeps the last good pair (WARN logged once per new mtime) and is retried at the
 * next check, so a key written a moment after its certificate is still picked up. The mtime is read
 * before the contents, so a write racing with a reload is caught by the next check.
 *
 * <p>Thread-safe: handshakes on any number of threads; the pair is swapped atomically and the alias
 * handed out by {@code choose*ServerAlias} names the generation it came from, so a handshake that
 * spans a swap still gets a chain and key that belong together.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingKeyManager.class);

  /** The cert file's mtime is looked at most once per second. */
  static final long CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Path certFile;
  private final Path keyFile;
  private final LongSupplier nanoClock;
  private final AtomicLong nextCheckNanos;
  private final Object reloadLock = new Object();

  private volatile Generation current;
  private volatile Generation previous;

  /** Guarded by reloadLock: the last failure (a cert mtime, or STAT_FAILED), to WARN once. */
  private Object lastFailure;

  private static final Object STAT_FAILED = new Object();

  /** One loaded pair and the delegate serving it. */
  private record Generation(
      long number, FileTime certMtime, PemKeyPair pair, X509ExtendedKeyManager delegate) {
    String prefix() {
      return number + ":";
    }
  }

  private ReloadingKeyManager(
      final Path certFile, final Path keyFile, final LongSupplier nanoClock, final Generation g) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.nanoClock = nanoClock;
    this.current = g;
    this.previous = g;
    this.nextCheckNanos = new AtomicLong(nanoClock.getAsLong() + CHECK_INTERVAL_NANOS);
  }

  /**
   * Loads the pair once, eagerly.
   *
   * @throws TlsConfigException of kind {@link TlsConfigException.Kind#LOAD_FAILED} when the files
   *     cannot be read or do not form a matching pair
   */
  public static ReloadingKeyManager load(final Path certFile, final Path keyFile) {
    return load(certFile, keyFile, System::nanoTime);
  }

  static ReloadingKeyManager load(
      final Path certFile, final Path keyFile, final LongSupplier nanoClock) {
    try {
      final FileTime mtime = Files.getLastModifiedTime(certFile);
      return new ReloadingKeyManager(
          certFile, keyFile, nanoClock, generation(0, mtime, certFile, keyFile));
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new TlsConfigException(
          TlsConfigException.Kind.LOAD_FAILED,
          "load TLS key pair (" + certFile + ", " + keyFile + "): " + e.getMessage(),
          e);
    }
  }

  private static Generation generation(
      final long number, final FileTime mtime, final Path certFile, final Path keyFile)
      throws IOException, GeneralSecurityException {
    final PemKeyPair pair = PemKeyPair.load(certFile, keyFile);
    final KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    // Never leaves this object; PKCS12 just needs some password.
    final char[] password = "inference-cache".toCharArray();
    store.setKeyEntry("server", pair.key(), password, pair.chain());
    final KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, password);
    for (final KeyManager km : factory.getKeyManagers()) {
      if (km instanceof X509ExtendedKeyManager) {
        return new Generation(number, mtime, pair, (X509ExtendedKeyManager) km);
      }
    }
    throw new GeneralSecurityException("no X509ExtendedKeyManager from " + factory.getAlgorithm());
  }

  /** The leaf certificate currently served. */
  public X509Certificate currentCertificate() {
    return current.pair().leaf();
  }

  /** Checks the cert file now, ignoring the interval. Returns true if a new pair was loaded. */
  public boolean reloadIfChanged() {
    synchronized (reloadLock) {
      final Generation g = current;
      final FileTime mtime;
      try {
        mtime = Files.getLastModifiedTime(certFile);
      } catch (IOException e) {
        warnOnce(
            STAT_FAILED,
            "TLS certificate reload: cannot stat " + certFile + "; keeping last good pair",
            e);
        return false;
      }
      if (lastFailure == STAT_FAILED) {
        lastFailure = null;
      }
      if (mtime.compareTo(g.certMtime()) <= 0) {
        return false;
      }
      try {
        final Generation next = generation(g.number() + 1, mtime, certFile, keyFile);
        previous = g;
        current = next;
        lastFailure = null;
        LOG.info(
            "TLS certificate reloaded: file={} mtime={} subject={} notAfter={}",
            certFile,
            mtime,
            next.pair().leaf().getSubjectX500Principal(),
            next.pair().leaf().getNotAfter().toInstant());
        return true;
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        warnOnce(
            mtime,
            "TLS certificate reload failed for "
                + certFile
                + " (mtime "
                + mtime
                + "); keeping last good pair: "
                + e.getMessage(),
            e);
        return false;
      }
    }
  }

  private void warnOnce(final Object failure, final String message, final Exception e) {
    if (!failure.equals(lastFailure)) {
      LOG.warn(message, e);
      lastFailure = failure;
    } else {
      LOG.debug(message, e);
    }
  }

  private void maybeReload() {
    final long now = nanoClock.getAsLong();
    final long due = nextCheckNanos.get();
    if (now - due < 0 || !nextCheckNanos.compareAndSet(due, now + CHECK_INTERVAL_NANOS)) {
      return;
    }
    reloadIfChanged();
  }

  private String tag(final Generation g, final String alias) {
    return alias == null ? null : g.prefix() + alias;
  }

  private Generation generationOf(final String alias) {
    if (alias == null) {
      return null;
    }
    final Generation c = current;
    if (alias.startsWith(c.prefix())) {
      return c;
    }
    final Generation p = previous;
    return alias.startsWith(p.prefix()) ? p : null;
  }

  @Override
  public String chooseEngineServerAlias(
      final String keyType, final Principal[] issuers, final SSLEngine engine) {
    maybeReload();
    final Generation g = current;
    return tag(g, g.delegate().chooseEngineServerAlias(keyType, issuers, engine));
  }

  @Override
  public String chooseServerAlias(
      final String keyType, final Principal[] issuers, final Socket socket) {
    maybeReload();
    final Generation g = current;
    return tag(g, g.delegate().chooseServerAlias(keyType, issuers, socket));
  }

  @Override
  public String[] getServerAliases(final String keyType, final Principal[] issuers) {
    final Generation g = current;
    final String[] aliases = g.delegate().getServerAliases(keyType, issuers);
    if (aliases == null) {
      return null;
    }
    final String[] tagged = new String[aliases.length];
    for (int i = 0; i < aliases.length; i++) {
      tagged[i] = tag(g, aliases[i]);
    }
    return tagged;
  }

  @Override
  public X509Certificate[] getCertificateChain(final String alias) {
    final Generation g = generationOf(alias);
    return g == null
        ? null
        : g.delegate().getCertificateChain(alias.substring(g.prefix().length()));
  }

  @Override
  public PrivateKey getPrivateKey(final String alias) {
    final Generation g = generationOf(alias);
    return g == null ? null : g.delegate().getPrivateKey(alias.substring(g.prefix().length()));
  }

  /** Server side only: no client certificates. */
  @Override
  public String[] getClientAliases(final String keyType, final Principal[] issuers) {
    return null;
  }

  /** Server side only: no client certificates. */
  @Override
  public String chooseClientAlias(
      final String[] keyType, final Principal[] issuers, final Socket socket) {
    return null;
  }

  /** Server side only: no client certificates. */
  @Override
  public String chooseEngineClientAlias(
      final String[] keyType, final Principal[] issuers, final SSLEngine engine) {
    return null;
  }
}
