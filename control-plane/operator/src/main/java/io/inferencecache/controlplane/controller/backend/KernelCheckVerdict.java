package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerStateTerminated;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Condition {@code EngineKernelsHealthy} from the {@code lmcache-kernel-check} init container of
 * the owned engine pods: its termination message {@code OK...} with exit code 0 is a pass, {@code
 * FAIL:...} a kernel that did not load, anything else an error of the check itself; a check that
 * has not terminated yet is pending. The worst pod decides (fail, then error, then pending). A
 * failure on a pod whose check runs strict ({@code KERNEL_CHECK_STRICT=1}) also turns a True Ready
 * into False/{@code EngineKernelDegraded}.
 */
final class KernelCheckVerdict {
  static final String TYPE = "EngineKernelsHealthy";
  static final String INIT_CONTAINER = "lmcache-kernel-check";
  static final String STRICT_ENV = "KERNEL_CHECK_STRICT";
  static final String HEALTHY = "KernelsHealthy";
  static final String LOAD_FAILED = "KernelLoadFailed";
  static final String CHECK_ERROR = "KernelCheckError";
  static final String PENDING = "KernelCheckPending";
  static final String READY_DEGRADED = "EngineKernelDegraded";

  private KernelCheckVerdict() {}

  /**
   * The verdict and whether it downgrades Ready.
   *
   * @param condition the EngineKernelsHealthy verdict
   * @param strictFailure a failing pod runs its check strict
   */
  record Result(ReadyRules.Verdict condition, boolean strictFailure) {}

  private enum Outcome {
    OK,
    PENDING,
    ERROR,
    FAIL
  }

  /** The verdict over {@code owned}; null when no owned pod has the kernel-check init container. */
  static Result evaluate(final List<V1Pod> owned) {
    int checked = 0;
    Outcome worst = Outcome.OK;
    String detail = null;
    boolean strict = false;
    for (final V1Pod p : owned) {
      final V1Container check = initContainer(p);
      if (check == null) {
        continue;
      }
      checked++;
      final V1ContainerStateTerminated t = terminated(p);
      final String message = t == null || t.getMessage() == null ? "" : t.getMessage().strip();
      final Outcome o;
      if (t == null) {
        o = Outcome.PENDING;
      } else if (message.startsWith("FAIL:")) {
        o = Outcome.FAIL;
        strict |= strict(check);
      } else if (ok(message) && t.getExitCode() != null && t.getExitCode() == 0) {
        o = Outcome.OK;
      } else {
        o = Outcome.ERROR;
      }
      if (o.compareTo(worst) > 0) {
        worst = o;
        detail =
            switch (o) {
              case PENDING -> "pod " + OwnedEnginePods.name(p) + " has not finished its check";
              case FAIL -> "pod " + OwnedEnginePods.name(p) + ": " + message;
              default ->
                  "pod "
                      + OwnedEnginePods.name(p)
                      + " ended its check with exit code "
                      + t.getExitCode()
                      + (message.isEmpty()
                          ? " and no message"
                          : " and message \"" + message + "\"");
            };
      }
    }
    if (checked == 0) {
      return null;
    }
    final ReadyRules.Verdict v =
        switch (worst) {
          case OK ->
              new ReadyRules.Verdict(
                  Conditions.TRUE,
                  HEALTHY,
                  "the LMCache kernel check passed on " + checked + " engine pod(s)");
          case PENDING ->
              new ReadyRules.Verdict(
                  Conditions.UNKNOWN, PENDING, "LMCache kernel check pending: " + detail);
          case ERROR ->
              new ReadyRules.Verdict(
                  Conditions.UNKNOWN,
                  CHECK_ERROR,
                  "LMCache kernel check could not decide: "
                      + detail
                      + " (kubectl logs -c "
                      + INIT_CONTAINER
                      + ")");
          case FAIL ->
              new ReadyRules.Verdict(
                  Conditions.FALSE,
                  LOAD_FAILED,
                  "LMCache GPU kernels did not load, the engine runs without them: " + detail);
        };
    return new Result(v, strict);
  }

  /**
   * Sets or removes the condition in {@code st} from {@code owned} and downgrades a True Ready on a
   * strict failure; {@code owned} null (the pod list failed) leaves everything as it was.
   */
  static void apply(
      final CacheBackend.Status st,
      final List<V1Pod> owned,
      final long gen,
      final OffsetDateTime now) {
    if (owned == null) {
      return;
    }
    final Result r = evaluate(owned);
    st.conditions =
        Conditions.setOrRemove(st.conditions, TYPE, r == null ? null : r.condition(), gen, now);
    if (r != null
        && r.strictFailure()
        && Conditions.is(st.conditions, ReadyRules.READY, Conditions.TRUE)) {
      st.conditions =
          Conditions.set(
              st.conditions,
              ReadyRules.READY,
              Conditions.FALSE,
              READY_DEGRADED,
              "kernel check is strict and failed: " + r.condition().message(),
              gen,
              now);
    }
  }

  private static V1Container initContainer(final V1Pod p) {
    final List<V1Container> init = p.getSpec() == null ? null : p.getSpec().getInitContainers();
    if (init != null) {
      for (final V1Container c : init) {
        if (INIT_CONTAINER.equals(c.getName())) {
          return c;
        }
      }
    }
    return null;
  }

  /** The check's termination: the current state, else the last one (a check being restarted). */
  private static V1ContainerStateTerminated terminated(final V1Pod p) {
    final List<V1ContainerStatus> statuses =
        p.getStatus() == null ? null : p.getStatus().getInitContainerStatuses();
    if (statuses == null) {
      return null;
    }
    for (final V1ContainerStatus s : statuses) {
      if (INIT_CONTAINER.equals(s.getName())) {
        if (s.getState() != null && s.getState().getTerminated() != null) {
          return s.getState().getTerminated();
        }
        return s.getLastState() == null ? null : s.getLastState().getTerminated();
      }
    }
    return null;
  }

  private static boolean ok(final String message) {
    return message.equals("OK") || message.startsWith("OK:") || message.startsWith("OK ");
  }

  private static boolean strict(final V1Container check) {
    if (check.getEnv() == null) {
      return false;
    }
    for (final V1EnvVar e : check.getEnv()) {
      if (STRICT_ENV.equals(e.getName()) && "1".equals(e.getValue())) {
        return true;
      }
    }
    return false;
  }
}
