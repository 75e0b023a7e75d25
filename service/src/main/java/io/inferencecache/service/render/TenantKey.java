package io.inferencecache.service.render;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret of RenderTemplate's {@code tenant_namespace}: HMAC-SHA256 of the request's {@code
 * tenant_id} (UTF-8) under this key, 32 bytes. The namespace names a tenant's cache partition
 * without revealing the tenant id to whoever sees the hash, and cannot be computed without the key.
 * {@link #NONE} (no key configured) and an empty tenant id give an empty namespace.
 *
 * <p>Thread-safe: each thread MACs with its own {@link Mac} (a JCE Mac is not thread-safe).
 */
public final class TenantKey {
  /** Shortest key accepted, in bytes (HMAC-SHA256's security needs at least 128 bits). */
  public static final int MIN_KEY_BYTES = 16;

  /** No key: {@code tenant_namespace} stays empty. */
  public static final TenantKey NONE = new TenantKey(null);

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs;

  private TenantKey(final byte[] secret) {
    this.key = secret == null ? null : new SecretKeySpec(secret, "HmacSHA256");
    this.macs = ThreadLocal.withInitial(this::newMac);
  }

  /**
   * A key of {@code secret}'s bytes.
   *
   * @throws IllegalArgumentException when shorter than {@value #MIN_KEY_BYTES} bytes
   */
  public static TenantKey of(final byte[] secret) {
    if (secret.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(
          "the tenant key has " + secret.length + " bytes; at least " + MIN_KEY_BYTES + " needed");
    }
    return new TenantKey(secret.clone());
  }

  /**
   * The key in {@code file}: its bytes, less trailing CR/LF (so {@code echo secret > file} and
   * {@code printf secret > file} give the same key).
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException when the key is shorter than {@value #MIN_KEY_BYTES} bytes
   */
  public static TenantKey fromFile(final Path file) throws IOException {
    final byte[] raw = Files.readAllBytes(file);
    int n = raw.length;
    while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == '\r')) {
      n--;
    }
    final byte[] secret = Arrays.copyOf(raw, n);
    Arrays.fill(raw, (byte) 0);
    try {
      return of(secret);
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  /** Whether a key is configured. */
  public boolean configured() {
    return key != null;
  }

  /** HMAC-SHA256(key, UTF-8 of {@code tenantId}); empty when no key or no tenant. */
  public byte[] namespace(final String tenantId) {
    if (key == null || tenantId == null || tenantId.isEmpty()) {
      return new byte[0];
    }
    return macs.get().doFinal(tenantId.getBytes(StandardCharsets.UTF_8));
  }

  private Mac newMac() {
    if (key == null) {
      return null;
    }
    try {
      final Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has HmacSHA256", e);
    }
  }
}
