package io.inferencecache.service.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes {@code tokenizer.json} loading as {@code --tokenizer-models-dir} does it ({@link
 * HuggingFaceTokenizers#load}: {@link TokenizerJsonCheck}, then DJL's native binding of the Rust
 * tokenizers library) and one encode of a fixed prompt. Whatever the bytes, loading never throws (a
 * bad file is logged and skipped), and a loaded model encodes or throws an {@link Exception} (the
 * lookup fails open). A Rust panic is not an exception: it aborts the JVM — the fuzzer's crash
 * report is the finding (docs/reliability.md §A).
 *
 * <p>Regression mode (CI) replays {@code TokenizerJsonFuzzTestInputs/load/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class TokenizerJsonFuzzTest {
  private static final Path DIR = tempDir();

  static {
    // One ERROR line per rejected file would dominate a fuzzing run.
    ((Logger) LoggerFactory.getLogger(HuggingFaceTokenizers.class)).setLevel(Level.OFF);
  }

  private static Path tempDir() {
    try {
      final Path dir = Files.createTempDirectory("tokenizer-json-fuzz");
      Files.createDirectories(dir.resolve("m"));
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "2m")
  void load(final byte[] bytes) throws IOException {
    Files.write(DIR.resolve("m").resolve("tokenizer.json"), bytes);
    try (HuggingFaceTokenizers t = HuggingFaceTokenizers.load(DIR)) {
      if (!t.supports("m")) {
        return;
      }
      final int[] ids;
      try {
        ids = t.encodeUserTurn("m", "Hello world, the cache! 123 <s> ünïcödé 你好");
      } catch (Exception expected) {
        return;
      }
      assertThat(ids).isNotNull();
    }
  }
}
