package io.inferencecache.controlplane.server.core;

import io.inferencecache.controlplane.server.config.AuthSettings;
import io.inferencecache.controlplane.server.config.TemplateSettings;
import io.inferencecache.controlplane.server.config.TlsSettings;
import io.inferencecache.service.render.TenantKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;

/**
 * The start-up checks of docs/behaviour.md#auth and docs/behaviour.md#tls and
 * docs/behaviour.md#startup, each throwing {@link StartupException}.
 */
public final class StartupChecks {
  private StartupChecks() {}

  /**
   * The exit-2 matrix of docs/behaviour.md#auth (fail closed: authentication must be configured or
   * disabled).
   */
  public static void authFlags(final AuthSettings auth) {
    final String sa = auth.getAllowedControllerSa();
    if (!sa.isEmpty() && auth.isInsecureDisableAuth()) {
      throw usage(
          "--allowed-controller-sa and --insecure-disable-auth are mutually exclusive: set exactly"
              + " one");
    }
    if (sa.isEmpty() && !auth.isInsecureDisableAuth()) {
      throw usage(
          "--allowed-controller-sa is required: the snapshot listener (/snapshot, /policy, /probe)"
              + " authenticates the controller's service account (e.g."
              + " system:serviceaccount:inference-cache-system:inference-cache-controller-manager);"
              + " pass --insecure-disable-auth to serve it without authentication (development"
              + " only)");
    }
    if (!sa.isEmpty()) {
      if (!sa.equals(sa.strip())) {
        throw usage("--allowed-controller-sa must not have leading or trailing whitespace");
      }
      audience("--controller-audience", auth.getControllerAudience());
      audience("--policy-audience", auth.getPolicyAudience());
    }
  }

  private static void audience(final String flag, final String value) {
    if (value.isBlank()) {
      throw usage(flag + " must not be empty when --allowed-controller-sa is set");
    }
    if (!value.equals(value.strip())) {
      throw usage(flag + " must not have leading or trailing whitespace");
    }
  }

  /** Exactly one TLS half given: exit 2. */
  public static void tlsPair(final TlsSettings tls) {
    if (tls.partial()) {
      throw usage("--tls-cert-file and --tls-key-file must both be set or both be empty");
    }
  }

  /**
   * Both TLS halves given: the certificate chain must parse and the key file must hold a PEM
   * private key (exit 1 otherwise). The gRPC server loads and reloads the pair itself.
   */
  public static void tlsLoad(final TlsSettings tls) {
    if (!tls.enabled()) {
      return;
    }
    try (InputStream in = Files.newInputStream(Path.of(tls.getCertFile()))) {
      if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        throw new CertificateException("no certificate in " + tls.getCertFile());
      }
    } catch (IOException | CertificateException e) {
      throw new StartupException(
          StartupException.FAILURE, "server: load TLS key pair: " + e.getMessage(), e);
    }
    try {
      final String key = Files.readString(Path.of(tls.getKeyFile()), StandardCharsets.US_ASCII);
      if (!key.contains("-----BEGIN") || !key.contains("PRIVATE KEY-----")) {
        throw new IOException("no PEM private key in " + tls.getKeyFile());
      }
    } catch (IOException e) {
      throw new StartupException(
          StartupException.FAILURE, "server: load TLS key pair: " + e.getMessage(), e);
    }
  }

  /**
   * The {@code --tenant-key-file} secret ({@link TenantKey#NONE} when none is configured); an
   * unreadable or short file is exit 1.
   */
  public static TenantKey tenantKey(final TemplateSettings templates) {
    final String file = templates.getTenantKeyFile();
    if (file == null || file.isBlank()) {
      return TenantKey.NONE;
    }
    try {
      return TenantKey.fromFile(Path.of(file.trim()));
    } catch (IOException | IllegalArgumentException e) {
      throw new StartupException(
          StartupException.FAILURE, "server: --tenant-key-file: " + e.getMessage(), e);
    }
  }

  private static StartupException usage(final String message) {
    return new StartupException(StartupException.USAGE, "server: " + message);
  }
}
