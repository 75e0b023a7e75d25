package io.inferencecache.templates;

import java.util.List;

/** A spec that breaks {@link TemplateRules}; the message names the first violation's field. */
public final class InvalidTemplateException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<TemplateViolation> violations;

  /**
   * @param violations at least one
   */
  public InvalidTemplateException(final List<TemplateViolation> violations) {
    super(violations.get(0).toString());
    this.violations = List.copyOf(violations);
  }

  /** Every violation found, in the order of {@link TemplateRules#validate}. */
  public List<TemplateViolation> violations() {
    return violations;
  }
}
