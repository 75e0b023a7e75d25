package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.policy.PolicySnapshot;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the {@code /policy} and {@code /probe} body decoders: whatever the bytes, they return a
 * value or throw only their documented 400-type exceptions ({@link JsonDecodeException}, and for
 * {@code /probe} {@link ProbeRequest.TrailingContentException}); the bytes after {@code length} are
 * never read; an accepted policy snapshot is normalized and installed as {@code /policy} does, and
 * its JSON re-encoding decodes again.
 *
 * <p>Regression mode (CI) replays {@code ApiDecodersFuzzTestInputs/<method>/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class ApiDecodersFuzzTest {
  static CacheIndex index;

  @BeforeAll
  static void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(1_000));
  }

  @AfterAll
  static void close() {
    index.close();
  }

  /** {@code bytes} in a larger buffer whose tail is junk the decoder must not read. */
  private static byte[] padded(final byte[] bytes) {
    final byte[] b = Arrays.copyOf(bytes, bytes.length + 3);
    b[bytes.length] = '}';
    b[bytes.length + 1] = ']';
    b[bytes.length + 2] = '"';
    return b;
  }

  @FuzzTest(maxDuration = "2m")
  void policy(final byte[] bytes) {
    final PolicySnapshot s;
    try {
      s = PolicyJson.decode(padded(bytes), bytes.length);
    } catch (JsonDecodeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    assertThat(s).isNotNull();
    if (!PolicySnapshot.isSupportedVersion(s.version())) {
      return; // 400 unsupported policy snapshot version
    }
    index.policyStore().replace(s.normalized());
    final String json = PolicyJson.write(s);
    try {
      final byte[] again = json.getBytes(StandardCharsets.UTF_8);
      PolicyJson.decode(again, again.length);
    } catch (JsonDecodeException e) {
      throw new AssertionError("own encoding does not decode: " + json, e);
    }
  }

  /**
   * {@code /prompt-templates}: a value or a {@link JsonDecodeException} naming a field; an accepted
   * set re-encodes (with revisions) to a body that decodes to the same specs.
   */
  @FuzzTest(maxDuration = "2m")
  void promptTemplates(final byte[] bytes) {
    final java.util.List<io.inferencecache.templates.PromptTemplate> ts;
    try {
      ts = PromptTemplateJson.decode(padded(bytes), bytes.length);
    } catch (JsonDecodeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    final String json = PromptTemplateJson.write(ts);
    try {
      final byte[] again = json.getBytes(StandardCharsets.UTF_8);
      final var back = PromptTemplateJson.decode(again, again.length);
      assertThat(back).hasSameSizeAs(ts);
      for (int i = 0; i < ts.size(); i++) {
        assertThat(back.get(i).spec()).isEqualTo(ts.get(i).spec());
      }
    } catch (JsonDecodeException e) {
      throw new AssertionError("own encoding does not decode: " + json, e);
    }
  }

  @FuzzTest(maxDuration = "2m")
  void probe(final byte[] bytes) {
    final ProbeRequest r;
    try {
      r = ProbeRequest.decode(padded(bytes), bytes.length);
    } catch (JsonDecodeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    } catch (ProbeRequest.TrailingContentException expected) {
      return;
    }
    assertThat(r.backend()).isNotNull();
    assertThat(r.model()).isNotNull();
    assertThat(r.hashScheme()).isNotNull();
    assertThat(r.backendType()).isNotNull();
    r.complete();
  }
}
