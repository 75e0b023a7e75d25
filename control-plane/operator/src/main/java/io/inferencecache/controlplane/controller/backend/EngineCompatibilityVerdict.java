package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Condition {@code EngineCompatibility} (advisory, never gates Ready): False with reason {@code
 * InjectedEngineCrashLooping} while the engine container of any owned engine pod waits in {@code
 * CrashLoopBackOff} (the injected engine configuration is the first suspect), absent otherwise.
 */
final class EngineCompatibilityVerdict {
  static final String TYPE = "EngineCompatibility";
  static final String CRASH_LOOPING = "InjectedEngineCrashLooping";
  private static final String BACKOFF = "CrashLoopBackOff";

  private EngineCompatibilityVerdict() {}

  /** The verdict over {@code owned} (pods stamped by {@code cr}); null: no condition. */
  static ReadyRules.Verdict evaluate(final CacheBackend cr, final List<V1Pod> owned) {
    final List<String> looping = new ArrayList<>();
    String first = null;
    for (final V1Pod p : owned) {
      final String engine = OwnedEnginePods.engineContainer(cr, p);
      if (engine == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
        continue;
      }
      for (final V1ContainerStatus s : p.getStatus().getContainerStatuses()) {
        if (engine.equals(s.getName())
            && s.getState() != null
            && s.getState().getWaiting() != null
            && BACKOFF.equals(s.getState().getWaiting().getReason())) {
          if (first == null) {
            first = "engine container \"" + engine + "\" of pod " + OwnedEnginePods.name(p);
          }
          looping.add(OwnedEnginePods.name(p));
        }
      }
    }
    if (looping.isEmpty()) {
      return null;
    }
    return new ReadyRules.Verdict(
        Conditions.FALSE,
        CRASH_LOOPING,
        first
            + " is in CrashLoopBackOff"
            + (looping.size() > 1 ? " (" + looping.size() + " pods: " + looping + ")" : "")
            + "; the injected engine configuration may not suit this engine image"
            + " (kubectl logs --previous shows why it exits)");
  }

  /**
   * Sets or removes the condition in {@code st} from {@code owned}; {@code owned} null (the pod
   * list failed) leaves it as it was.
   */
  static void apply(
      final CacheBackend cr,
      final CacheBackend.Status st,
      final List<V1Pod> owned,
      final long gen,
      final OffsetDateTime now) {
    if (owned == null) {
      return;
    }
    st.conditions = Conditions.setOrRemove(st.conditions, TYPE, evaluate(cr, owned), gen, now);
  }
}
