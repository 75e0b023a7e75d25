package io.inferencecache.controlplane.k8s.model;

import io.kubernetes.client.openapi.models.V1Condition;
import java.util.List;

/** The status fields every reconciled kind shares: observed generation and conditions. */
public class ConditionedStatus {
  /** Generation of the spec the status was computed from. */
  public Long observedGeneration;

  /** Conditions, one per type (a list map keyed by {@code type}). */
  public List<V1Condition> conditions;
}
