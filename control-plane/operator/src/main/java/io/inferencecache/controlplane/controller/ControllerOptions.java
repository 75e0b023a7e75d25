package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the {@code controller} command was told (flags resolved, intervals parsed).
 *
 * @param metricsBindAddress {@code host:port} of {@code /metrics}; {@code "0"} disables it
 * @param healthProbeBindAddress {@code host:port} of {@code /healthz} and {@code /readyz}
 * @param kubeconfig explicit kubeconfig, or {@code null} ({@code $KUBECONFIG}, in-cluster, {@code
 *     ~/.kube/config} in that order)
 * @param leaderElectionNamespace namespace of the Lease
 */
public record ControllerOptions(
    String metricsBindAddress,
    String healthProbeBindAddress,
    boolean leaderElect,
    String serverSnapshotUrl,
    String serverPolicyUrl,
    Duration cacheIndexRefreshInterval,
    Duration cachePolicyPushInterval,
    Path kubeconfig,
    Path policyTokenFile,
    Path controllerTokenFile,
    String leaderElectionNamespace,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {

  /** The Lease of the leader election (the metrics' label owns the text). */
  public static final String LEADER_LOCK = ControllerMetrics.LEADER_LOCK;

  /** Default of {@code --policy-token-file}. */
  public static final String POLICY_TOKEN = "/var/run/secrets/inferencecache.io/policy-token/token";

  /** Default of {@code --controller-token-file}. */
  public static final String CONTROLLER_TOKEN =
      "/var/run/secrets/inferencecache.io/controller-token/token";
}
