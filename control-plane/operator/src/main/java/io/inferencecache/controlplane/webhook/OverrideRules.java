package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheBackend.EngineRuntime;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The CacheBackend's engine-adapter rules: the (runtime, type) pair must have an adapter, and
 * {@code spec.integration.engineOverrides} must be well formed and leave alone what the adapter's
 * injection sets.
 */
final class OverrideRules {
  private static final Pattern ENV_NAME = Pattern.compile("^[-._a-zA-Z][-._a-zA-Z0-9]*$");

  private OverrideRules() {}

  /** Runs only when {@code spec.type} is set: the (runtime, type) pair must have an adapter. */
  static void runtimeAdapter(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.type == null || spec.runtime == null) {
      return;
    }
    if (RuntimeAdapter.select(spec).isEmpty()) {
      e.add(
          FieldError.invalid(
              "spec.runtime",
              spec.runtime == EngineRuntime.SGLANG ? "SGLang" : "VLLM",
              "no engine adapter for this runtime and type; supported: "
                  + RuntimeAdapter.SUPPORTED));
    }
  }

  /** Runs only when {@code spec.type} is set: overrides must be well formed and not reserved. */
  static void engineOverrides(final CacheBackend.Spec spec, final List<FieldError> e) {
    if (spec.type == null || spec.integration == null || spec.integration.engineOverrides == null) {
      return;
    }
    final Optional<RuntimeAdapter> found = RuntimeAdapter.select(spec);
    if (found.isEmpty()) {
      return;
    }
    final RuntimeAdapter adapter = found.get();
    final CacheBackend.EngineOverrides o = spec.integration.engineOverrides;
    final String p = "spec.integration.engineOverrides";
    reservedArgs(p + ".args", o.args, adapter, e);
    reservedArgs(p + ".suppressArgs", o.suppressArgs, adapter, e);
    if (o.env != null) {
      for (int i = 0; i < o.env.size(); i++) {
        env(p + ".env[" + i + "]", o.env.get(i), adapter, e);
      }
    }
    if (o.suppressEnv != null) {
      for (int i = 0; i < o.suppressEnv.size(); i++) {
        if (adapter.reservedEnv().contains(o.suppressEnv.get(i))) {
          e.add(reservedEnv(p + ".suppressEnv[" + i + "]", o.suppressEnv.get(i), adapter));
        }
      }
    }
  }

  private static void reservedArgs(
      final String field,
      final List<String> args,
      final RuntimeAdapter adapter,
      final List<FieldError> e) {
    if (args == null || args.isEmpty()) {
      return;
    }
    final String token = RuntimeAdapter.flagToken(args.get(0));
    if (adapter.reservedArgs().contains(token)) {
      e.add(
          FieldError.forbidden(
              field,
              "flag "
                  + token
                  + " is set by the "
                  + adapter.runtimeId()
                  + " engine injection and cannot be overridden"));
    }
    for (int i = 1; i < args.size(); i++) {
      final String t = RuntimeAdapter.flagToken(args.get(i));
      if (t.startsWith("--") && adapter.reservedArgs().contains(t)) {
        e.add(
            FieldError.forbidden(
                field + "[" + i + "]",
                "flag "
                    + t
                    + " is set by the "
                    + adapter.runtimeId()
                    + " engine injection and cannot be overridden"));
      }
    }
  }

  private static void env(
      final String field,
      final V1EnvVar v,
      final RuntimeAdapter adapter,
      final List<FieldError> e) {
    if (v.getName() == null || v.getName().isEmpty()) {
      e.add(FieldError.required(field + ".name", "name is required"));
      return;
    }
    if (!ENV_NAME.matcher(v.getName()).matches()) {
      e.add(
          FieldError.invalid(
              field + ".name",
              v.getName(),
              "a valid environment variable name must consist of alphabetic characters, digits,"
                  + " '_', '-', or '.', and must not start with a digit"));
    }
    if (adapter.reservedEnv().contains(v.getName())) {
      e.add(reservedEnv(field + ".name", v.getName(), adapter));
    }
    final V1EnvVarSource from = v.getValueFrom();
    if (from != null) {
      if (v.getValue() != null && !v.getValue().isEmpty()) {
        e.add(
            FieldError.invalid(
                field + ".valueFrom", "object", "may not be specified when `value` is not empty"));
      }
      int sources = 0;
      sources += from.getFieldRef() != null ? 1 : 0;
      sources += from.getResourceFieldRef() != null ? 1 : 0;
      sources += from.getConfigMapKeyRef() != null ? 1 : 0;
      sources += from.getSecretKeyRef() != null ? 1 : 0;
      if (sources != 1) {
        e.add(
            FieldError.invalid(
                field + ".valueFrom",
                "object",
                "must specify exactly one of fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef"));
      }
    }
  }

  private static FieldError reservedEnv(
      final String field, final String name, final RuntimeAdapter adapter) {
    return FieldError.forbidden(
        field,
        "environment variable "
            + name
            + " is set by the "
            + adapter.runtimeId()
            + " engine injection and cannot be overridden");
  }
}
