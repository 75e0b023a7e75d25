package io.inferencecache.controlplane.doctor;

/**
 * One result of a check.
 *
 * @param code the finding code (its status is fixed)
 * @param check the check's name, e.g. {@code ServerReachability}
 * @param resource what it is about ({@code cachebackend/<ns>/<name>}, a URL...), or {@code ""}
 * @param message what was seen and what to do about it
 */
public record Finding(Code code, String check, String resource, String message) {
  public Finding {
    resource = resource == null ? "" : resource;
  }

  public Status status() {
    return code.status();
  }
}
