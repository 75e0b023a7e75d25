package io.inferencecache.kubelocal;

/**
 * What a finished command returned.
 *
 * @param exitCode the process exit code (0 is success)
 * @param stdout everything written to standard output
 * @param stderr everything written to standard error
 */
public record ProcessResult(int exitCode, String stdout, String stderr) {

  /** True when the command exited with 0. */
  public boolean succeeded() {
    return exitCode == 0;
  }

  /**
   * Returns this result if the command succeeded.
   *
   * @throws IllegalStateException naming the exit code and the command's stderr otherwise
   */
  public ProcessResult orThrow() {
    if (!succeeded()) {
      throw new IllegalStateException("exit code " + exitCode + ": " + stderr.strip());
    }
    return this;
  }
}
