package io.inferencecache.controlplane.controller.routing;

import io.kubernetes.client.openapi.models.V1Condition;
import java.util.ArrayList;
import java.util.List;

/** Copies of condition lists, so that a verdict never changes the status it started from. */
final class ReadyConditions {
  private ReadyConditions() {}

  /** A deep copy of {@code list}, or null. */
  static List<V1Condition> copy(final List<V1Condition> list) {
    if (list == null) {
      return null;
    }
    final List<V1Condition> out = new ArrayList<>(list.size());
    for (final V1Condition c : list) {
      out.add(
          new V1Condition()
              .type(c.getType())
              .status(c.getStatus())
              .reason(c.getReason())
              .message(c.getMessage())
              .observedGeneration(c.getObservedGeneration())
              .lastTransitionTime(c.getLastTransitionTime()));
    }
    return out;
  }
}
