package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1EnvVar;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engine container of a pod being injected: its args and env as the user wrote them, what the
 * injection added or changed (tracked by flag token and env name), and the {@code engineOverrides}
 * merge scoped to that contribution. Changes stay in this object until {@link #write()}.
 */
final class EngineContainer {
  /** Thrown when the injection cannot be applied as a whole; the pod is admitted unchanged. */
  static final class InjectionException extends Exception {
    private static final long serialVersionUID = 1L;

    InjectionException(final String message) {
      super(message);
    }
  }

  private static final com.google.gson.Gson GSON = JSON.getGson();

  private final ObjectNode container;
  private final List<String> command = new ArrayList<>();
  private final List<String> args = new ArrayList<>();
  private final Set<String> userTokens = new HashSet<>();
  private final Set<String> touchedTokens = new HashSet<>();
  private final Set<String> touchedEnv = new HashSet<>();
  private final ArrayNode env;
  private boolean argsChanged;

  private EngineContainer(final ObjectNode container) {
    this.container = container;
    strings(container.get("command"), command);
    strings(container.get("args"), args);
    for (final String s : command) {
      userTokens.add(RuntimeAdapter.flagToken(s));
    }
    for (final String s : args) {
      userTokens.add(RuntimeAdapter.flagToken(s));
    }
    final JsonNode e = container.get("env");
    this.env =
        e != null && e.isArray()
            ? (ArrayNode) e.deepCopy()
            : AdmissionRequest.JSON.createArrayNode();
  }

  /**
   * The adapter's engine container by name, else the only container that is not the subscriber;
   * null when there is neither.
   */
  static EngineContainer find(final ObjectNode podSpec, final RuntimeAdapter adapter) {
    final JsonNode containers = podSpec.get("containers");
    if (containers == null || !containers.isArray()) {
      return null;
    }
    ObjectNode only = null;
    int count = 0;
    for (final JsonNode c : containers) {
      if (!c.isObject()) {
        continue;
      }
      final String name = c.path("name").asText("");
      if (name.equals(adapter.engineContainer())) {
        return new EngineContainer((ObjectNode) c);
      }
      if (!name.equals(SubscriberSidecar.NAME)) {
        only = (ObjectNode) c;
        count++;
      }
    }
    return count == 1 ? new EngineContainer(only) : null;
  }

  /** True when the command or args carry {@code token} (as {@code token} or {@code token=...}). */
  boolean hasFlag(final String token) {
    return userTokens.contains(token) || touchedTokens.contains(token);
  }

  /** The value of {@code --flag=v} or {@code --flag v} in command or args, or null. */
  String value(final String token) {
    final List<String> all = new ArrayList<>(command);
    all.addAll(args);
    for (int i = 0; i < all.size(); i++) {
      final String s = all.get(i);
      if (s.startsWith(token + "=")) {
        return s.substring(token.length() + 1);
      }
      if (s.equals(token)) {
        return i + 1 < all.size() && !all.get(i + 1).startsWith("-") ? all.get(i + 1) : "";
      }
    }
    return null;
  }

  /** The engine's HTTP port from {@code --port}, else {@code fallback}. */
  int port(final int fallback) {
    final String v = value("--port");
    try {
      final int p = v == null ? fallback : Integer.parseInt(v.strip());
      return p >= 1 && p <= 65535 ? p : fallback;
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /**
   * Sets {@code --flag=value} (or the bare flag when value is null): nothing when the user already
   * has the same value; an {@link InjectionException} when the user has another one.
   */
  void requireArg(final String token, final String value) throws InjectionException {
    final String existing = value(token);
    if (existing != null) {
      final boolean same = value == null ? existing.isEmpty() : value.equals(existing);
      if (!same) {
        throw new InjectionException(
            "engine container already sets "
                + token
                + (existing.isEmpty() ? "" : "=" + existing)
                + ", the injection needs "
                + (value == null ? token : token + "=" + value));
      }
      return;
    }
    args.add(value == null ? token : token + "=" + value);
    touchedTokens.add(token);
    argsChanged = true;
  }

  /** Refuses the injection when the user sets {@code token}. */
  void forbidArg(final String token, final String why) throws InjectionException {
    if (userTokens.contains(token)) {
      throw new InjectionException("engine container sets " + token + ": " + why);
    }
  }

  /** Appends {@code --flag=value} when the flag is absent, else leaves the user's. */
  void addArgIfAbsent(final String token, final String value) {
    if (!hasFlag(token)) {
      args.add(token + "=" + value);
      touchedTokens.add(token);
      argsChanged = true;
    }
  }

  /**
   * Merges {@code engineOverrides} into the injection's contribution: suppressions remove only
   * added entries, an arg or env of an added token/name replaces it in place, one the user template
   * already has is left alone, anything else is appended ({@code --flag value} pairs stay
   * together).
   */
  void applyOverrides(final CacheBackend.EngineOverrides o) {
    if (o == null) {
      return;
    }
    if (o.suppressArgs != null) {
      for (final String s : o.suppressArgs) {
        if (touchedTokens.remove(s)) {
          args.removeIf(a -> RuntimeAdapter.flagToken(a).equals(s));
          argsChanged = true;
        }
      }
    }
    if (o.suppressEnv != null) {
      for (final String s : o.suppressEnv) {
        if (touchedEnv.remove(s)) {
          removeEnv(s);
        }
      }
    }
    if (o.args != null) {
      final List<String> in = o.args;
      for (int i = 0; i < in.size(); i++) {
        final String a = in.get(i);
        final List<String> unit = new ArrayList<>(List.of(a));
        if (a.startsWith("-")
            && !a.contains("=")
            && i + 1 < in.size()
            && !in.get(i + 1).startsWith("-")) {
          unit.add(in.get(++i));
        }
        final String token = RuntimeAdapter.flagToken(a);
        if (!a.startsWith("-")) {
          args.addAll(unit);
          argsChanged = true;
        } else if (touchedTokens.contains(token)) {
          // The injection adds single --flag=value entries, so one element is replaced.
          final int at = indexOfToken(token);
          args.remove(at);
          args.addAll(at, unit);
          argsChanged = true;
        } else if (!userTokens.contains(token)) {
          args.addAll(unit);
          touchedTokens.add(token);
          argsChanged = true;
        }
      }
    }
    if (o.env != null) {
      for (final V1EnvVar v : o.env) {
        final JsonNode node = readTree(GSON.toJson(v));
        final int at = indexOfEnv(v.getName());
        if (touchedEnv.contains(v.getName()) && at >= 0) {
          env.set(at, node);
        } else if (at < 0) {
          env.add(node);
          touchedEnv.add(v.getName());
        }
      }
    }
  }

  /**
   * Sets env {@code name=value}: nothing when the user already has that value; an {@link
   * InjectionException} when the user sets it otherwise (another value or a {@code valueFrom}).
   */
  void requireEnv(final String name, final String value) throws InjectionException {
    final int at = indexOfEnv(name);
    if (at >= 0 && !touchedEnv.contains(name)) {
      final JsonNode e = env.get(at);
      if (e.has("valueFrom") || !value.equals(e.path("value").asText(""))) {
        throw new InjectionException(
            "engine container already sets env "
                + name
                + (e.has("valueFrom") ? " from a source" : "=" + e.path("value").asText(""))
                + ", the injection needs "
                + name
                + "="
                + value);
      }
      return;
    }
    putEnv(name, value);
  }

  /** The container itself, for the pod-level wiring (volume mounts) of an injection. */
  ObjectNode node() {
    return container;
  }

  /** Upserts an env var set by the injection. */
  void putEnv(final String name, final String value) {
    final ObjectNode node =
        AdmissionRequest.JSON.createObjectNode().put("name", name).put("value", value);
    final int at = indexOfEnv(name);
    if (at >= 0) {
      if (!env.get(at).equals(node)) {
        env.set(at, node);
        touchedEnv.add(name);
      }
    } else {
      env.add(node);
      touchedEnv.add(name);
    }
  }

  /** Writes args and env back into the container. */
  void write() {
    if (argsChanged) {
      final ArrayNode a = container.putArray("args");
      args.forEach(a::add);
    }
    if (!env.isEmpty() || container.has("env")) {
      if (!env.equals(container.get("env"))) {
        container.set("env", env);
      }
    }
  }

  private int indexOfToken(final String token) {
    for (int i = 0; i < args.size(); i++) {
      if (RuntimeAdapter.flagToken(args.get(i)).equals(token)) {
        return i;
      }
    }
    return -1;
  }

  private int indexOfEnv(final String name) {
    for (int i = 0; i < env.size(); i++) {
      if (name.equals(env.get(i).path("name").asText(null))) {
        return i;
      }
    }
    return -1;
  }

  private void removeEnv(final String name) {
    final int at = indexOfEnv(name);
    if (at >= 0) {
      env.remove(at);
    }
  }

  private static JsonNode readTree(final String json) {
    try {
      return AdmissionRequest.JSON.readTree(json);
    } catch (java.io.IOException e) {
      return AdmissionRequest.JSON.createObjectNode();
    }
  }

  private static void strings(final JsonNode n, final List<String> out) {
    if (n != null && n.isArray()) {
      for (final JsonNode s : n) {
        out.add(s.asText());
      }
    }
  }
}
