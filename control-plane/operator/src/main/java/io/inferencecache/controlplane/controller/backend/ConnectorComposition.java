package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Condition;

/**
 * The base Ready of a typed LMCache Offload backend on the Managed, External and host-only paths:
 * the connector decides, the remote tier only gates when {@code failOpen} is false.
 *
 * <ol>
 *   <li>ConnectorReady absent or observed for another generation: Unknown/{@code
 *       ConnectorInjectionUnverified};
 *   <li>ConnectorReady not True: its status, reason and message;
 *   <li>a remote tier configured whose RemoteStorageReady is not True: with {@code failOpen=false}
 *       that condition's status, reason and message; with {@code failOpen=true} True/{@code
 *       ConnectorReady}, the message naming the tier that does not gate;
 *   <li>else True/{@code ConnectorReady}.
 * </ol>
 */
final class ConnectorComposition {
  private ConnectorComposition() {}

  /** The base Ready of {@code cr} from the conditions of the status being built. */
  static ReadyRules.Verdict readyBase(final CacheBackend cr, final CacheBackend.Status st) {
    final long gen = cr.generation();
    final V1Condition c = Conditions.get(st.conditions, ConnectorReadiness.TYPE);
    if (c == null || c.getObservedGeneration() == null || c.getObservedGeneration() != gen) {
      return new ReadyRules.Verdict(
          Conditions.UNKNOWN,
          ConnectorReadiness.UNVERIFIED,
          "connector readiness not observed yet for generation " + gen);
    }
    if (!Conditions.TRUE.equals(c.getStatus())) {
      return new ReadyRules.Verdict(c.getStatus(), c.getReason(), c.getMessage());
    }
    final V1Condition remote = Conditions.get(st.conditions, ReadyRules.REMOTE_STORAGE_READY);
    if (Backends.spec(cr).remoteStorage != null
        && (remote == null || !Conditions.TRUE.equals(remote.getStatus()))) {
      final String status = remote == null ? Conditions.UNKNOWN : remote.getStatus();
      final String reason = remote == null ? "RemoteStoragePending" : remote.getReason();
      final String message =
          remote == null ? "remote storage not evaluated yet" : remote.getMessage();
      if (!Backends.failOpen(cr)) {
        return new ReadyRules.Verdict(status, reason, message);
      }
      return new ReadyRules.Verdict(
          Conditions.TRUE,
          ConnectorReadiness.READY,
          c.getMessage()
              + "; remote storage is degraded ("
              + reason
              + ": "
              + message
              + ") but does not gate Ready with integration.failOpen=true");
    }
    return new ReadyRules.Verdict(Conditions.TRUE, ConnectorReadiness.READY, c.getMessage());
  }
}
