package io.inferencecache.controlplane.doctor;

/** How bad a finding is, in ladder order: OK &lt; INFO &lt; WARN &lt; FAIL. */
public enum Status {
  OK,
  INFO,
  WARN,
  FAIL;

  /**
   * The exit code of a report whose worst finding is this: 0 up to INFO, 1 for WARN, 2 for FAIL.
   */
  int exitCode() {
    return switch (this) {
      case OK, INFO -> 0;
      case WARN -> 1;
      case FAIL -> 2;
    };
  }
}
