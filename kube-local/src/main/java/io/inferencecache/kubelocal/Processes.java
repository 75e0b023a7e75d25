package io.inferencecache.kubelocal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion and captures its output (through files: no pipe can fill up). */
final class Processes {

  private Processes() {}

  /**
   * Runs {@code command}, feeding it {@code stdin} (null: nothing), and waits at most {@code
   * timeoutSeconds}.
   *
   * @param inheritStderr true to let the command's stderr through to ours (progress of long runs);
   *     the result's stderr is then empty
   */
  static ProcessResult run(
      List<String> command,
      Map<String, String> environment,
      String stdin,
      long timeoutSeconds,
      boolean inheritStderr) {
    Path out = null;
    Path err = null;
    Path in = null;
    try {
      out = Files.createTempFile("kube-local-out", ".txt");
      err = Files.createTempFile("kube-local-err", ".txt");
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile());
      builder.environment().putAll(environment);
      if (inheritStderr) {
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
      } else {
        builder.redirectError(err.toFile());
      }
      if (stdin != null) {
        in = Files.createTempFile("kube-local-in", ".txt");
        Files.writeString(in, stdin);
        builder.redirectInput(in.toFile());
      } else {
        builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      }
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
        throw new IllegalStateException(
            "timed out after " + timeoutSeconds + "s: " + String.join(" ", command));
      }
      return new ProcessResult(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
      deleteQuietly(in);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // a leftover temporary file is harmless
      }
    }
  }
}
