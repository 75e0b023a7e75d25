package io.inferencecache.service.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TenantKey}: the key file, its bounds, and the digest. */
class TenantKeyTest {
  @TempDir Path dir;

  @Test
  void aKeyFileWithOrWithoutTrailingNewlineIsTheSameKey() throws Exception {
    final Path a = Files.writeString(dir.resolve("a"), "0123456789abcdefXYZ\n");
    final Path b = Files.writeString(dir.resolve("b"), "0123456789abcdefXYZ");
    final Path c = Files.writeString(dir.resolve("c"), "0123456789abcdefXYZ\r\n");
    final byte[] na = TenantKey.fromFile(a).namespace("t");
    assertThat(na).hasSize(32);
    assertThat(TenantKey.fromFile(b).namespace("t")).isEqualTo(na);
    assertThat(TenantKey.fromFile(c).namespace("t")).isEqualTo(na);
    assertThat(TenantKey.fromFile(a).namespace("u")).isNotEqualTo(na);
  }

  @Test
  void aShortKeyIsRefused() throws Exception {
    final Path f = Files.writeString(dir.resolve("k"), "short\n");
    assertThatThrownBy(() -> TenantKey.fromFile(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("5 bytes; at least 16");
  }

  @Test
  void differentKeysGiveDifferentNamespaces() {
    final byte[] k1 = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    final byte[] k2 = "0123456789abcdeF".getBytes(StandardCharsets.UTF_8);
    assertThat(TenantKey.of(k1).namespace("t")).isNotEqualTo(TenantKey.of(k2).namespace("t"));
    assertThat(TenantKey.NONE.namespace("t")).isEmpty();
    assertThat(TenantKey.of(k1).namespace("")).isEmpty();
  }
}
