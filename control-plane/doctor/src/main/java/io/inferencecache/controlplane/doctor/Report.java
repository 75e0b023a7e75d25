package io.inferencecache.controlplane.doctor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The findings of one doctor run, in the order the checks emitted them. */
public final class Report {
  private final List<Finding> findings = new ArrayList<>();

  public void add(final Finding f) {
    findings.add(f);
  }

  public void add(
      final Code code, final String check, final String resource, final String message) {
    add(new Finding(code, check, resource, message));
  }

  public List<Finding> findings() {
    return Collections.unmodifiableList(findings);
  }

  /** How many findings have {@code status}. */
  public int count(final Status status) {
    int n = 0;
    for (final Finding f : findings) {
      if (f.status() == status) {
        n++;
      }
    }
    return n;
  }

  /** 0 when the worst finding is at most INFO (or there is none), 1 for WARN, 2 for FAIL. */
  public int exitCode() {
    Status worst = Status.OK;
    for (final Finding f : findings) {
      if (f.status().compareTo(worst) > 0) {
        worst = f.status();
      }
    }
    return worst.exitCode();
  }
}
