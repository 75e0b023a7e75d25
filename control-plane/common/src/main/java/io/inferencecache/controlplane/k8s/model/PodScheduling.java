package io.inferencecache.controlplane.k8s.model;

import io.kubernetes.client.openapi.models.V1LocalObjectReference;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1Toleration;
import java.util.List;

/** Pod settings of a workload the controller runs (never node selection). */
public class PodScheduling {
  public List<V1Toleration> tolerations;
  public List<V1LocalObjectReference> imagePullSecrets;
  public String serviceAccountName;
  public V1PodSecurityContext securityContext;
  public String priorityClassName;
  public String schedulerName;
  public String runtimeClassName;
  public Long terminationGracePeriodSeconds;
}
