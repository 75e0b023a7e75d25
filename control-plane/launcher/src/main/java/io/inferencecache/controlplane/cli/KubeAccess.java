package io.inferencecache.controlplane.cli;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * How {@code doctor} and {@code controller} reach the API server. Tried in order: {@code
 * --kubeconfig}, the first existing file of {@code $KUBECONFIG}, then {@code ~/.kube/config} and
 * the in-cluster configuration ({@code doctor} tries the file first, as kubectl does; {@code
 * controller} the pod first, as controller-runtime does). A file that was named but does not exist
 * is an error, never skipped. When nothing is found the error says what was tried and what to do
 * ({@link #NOTHING_FOUND}).
 */
public final class KubeAccess {
  /** The start of the message when no configuration is found. */
  public static final String NOTHING_FOUND = "no kubeconfig:";

  /** The in-cluster service-account directory (token and CA), as the official client reads it. */
  static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private KubeAccess() {}

  /** Which of {@code ~/.kube/config} and the in-cluster configuration comes first. */
  public enum Order {
    /** {@code doctor}: the home kubeconfig, else the pod's. */
    HOME_THEN_CLUSTER,
    /** {@code controller}: the pod's, else the home kubeconfig. */
    CLUSTER_THEN_HOME
  }

  /**
   * What the resolution reads: environment variables, the home directory and the service-account
   * directory.
   */
  public record Env(UnaryOperator<String> variables, Path home, Path serviceAccount) {
    /** This process's environment, {@code user.home} and the standard service-account directory. */
    public static Env system() {
      return new Env(System::getenv, Path.of(System.getProperty("user.home")), SERVICE_ACCOUNT);
    }

    String get(final String name) {
      final String v = variables.apply(name);
      return v == null || v.isBlank() ? null : v.strip();
    }
  }

  /** Where the client configuration comes from. */
  public sealed interface Source permits Kubeconfig, InCluster {}

  /**
   * A kubeconfig file.
   *
   * @param origin how it was found: {@code --kubeconfig}, {@code $KUBECONFIG} or {@code
   *     ~/.kube/config}
   */
  public record Kubeconfig(Path file, String origin) implements Source {}

  /** The pod's service account ({@code KUBERNETES_SERVICE_HOST} and the mounted token). */
  public record InCluster() implements Source {}

  /** No usable configuration; the message is one line that says why and what to do. */
  public static final class Unavailable extends IOException {
    private static final long serialVersionUID = 1L;

    Unavailable(final String message) {
      super(message);
    }

    Unavailable(final String message, final Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The configuration to use.
   *
   * @param flag the {@code --kubeconfig} value, or null / empty when not given
   * @throws Unavailable naming what was tried
   */
  public static Source resolve(final String flag, final Env env, final Order order)
      throws Unavailable {
    if (flag != null && !flag.isBlank()) {
      final Path file = Path.of(flag.strip());
      if (!Files.isRegularFile(file)) {
        throw new Unavailable("kubeconfig " + file + " (--kubeconfig) does not exist");
      }
      return new Kubeconfig(file, "--kubeconfig");
    }
    final String list = env.get("KUBECONFIG");
    if (list != null) {
      for (final String entry : list.split(File.pathSeparator)) {
        if (!entry.isBlank() && Files.isRegularFile(Path.of(entry.strip()))) {
          return new Kubeconfig(Path.of(entry.strip()), "$KUBECONFIG");
        }
      }
      throw new Unavailable("kubeconfig: no file of $KUBECONFIG (" + list + ") exists");
    }
    final Path home = env.home().resolve(".kube").resolve("config");
    final boolean inPod = env.get("KUBERNETES_SERVICE_HOST") != null;
    if (Files.isRegularFile(home) && (order == Order.HOME_THEN_CLUSTER || !inPod)) {
      return new Kubeconfig(home, "~/.kube/config");
    }
    if (inPod) {
      return inCluster(env);
    }
    throw new Unavailable(
        NOTHING_FOUND
            + " --kubeconfig and $KUBECONFIG are unset, ~/.kube/config ("
            + home
            + ") is missing, and this is not a pod (KUBERNETES_SERVICE_HOST unset); pass"
            + " --kubeconfig FILE or set KUBECONFIG");
  }

  private static InCluster inCluster(final Env env) throws Unavailable {
    final String port = env.get("KUBERNETES_SERVICE_PORT");
    if (port == null || !port.chars().allMatch(Character::isDigit)) {
      throw new Unavailable(
          "in-cluster config: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is "
              + (port == null ? "unset" : "\"" + port + "\", not a port")
              + "; outside a pod pass --kubeconfig FILE");
    }
    for (final String name : new String[] {"token", "ca.crt"}) {
      final Path f = env.serviceAccount().resolve(name);
      if (!Files.isRegularFile(f)) {
        throw new Unavailable(
            "in-cluster config: KUBERNETES_SERVICE_HOST is set but "
                + f
                + " is missing (is a service-account token mounted?); outside a pod pass"
                + " --kubeconfig FILE");
      }
    }
    return new InCluster();
  }

  /**
   * A client for {@code source}.
   *
   * @param context the kubeconfig context, or null / empty for the current one
   * @param readTimeout the client's read timeout ({@link Duration#ZERO}: none, for watches)
   * @throws Unavailable the file cannot be read or parsed, the context does not exist, or a context
   *     was asked for in-cluster
   */
  public static ApiClient client(
      final Source source, final String context, final Duration readTimeout) throws Unavailable {
    final boolean withContext = context != null && !context.isBlank();
    final ClientBuilder builder;
    try {
      if (source instanceof Kubeconfig k) {
        final KubeConfig config;
        try (Reader r = Files.newBufferedReader(k.file(), StandardCharsets.UTF_8)) {
          config = KubeConfig.loadKubeConfig(r);
        }
        if (config == null) {
          throw new Unavailable("kubeconfig " + k.file() + " (" + k.origin() + ") is empty");
        }
        config.setFile(k.file().toAbsolutePath().toFile());
        if (withContext && !config.setContext(context)) {
          throw new Unavailable("context \"" + context + "\" not found in kubeconfig " + k.file());
        }
        builder = ClientBuilder.kubeconfig(config);
      } else {
        if (withContext) {
          throw new Unavailable("--context needs a kubeconfig (this run uses the pod's account)");
        }
        builder = ClientBuilder.cluster();
      }
      builder.setReadTimeout(readTimeout);
      return builder.build();
    } catch (Unavailable e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new Unavailable(describe(source) + ": " + e.getMessage(), e);
    }
  }

  /** {@link #resolve} then {@link #client}, for this process's environment. */
  public static ApiClient client(
      final String flag, final Order order, final String context, final Duration readTimeout)
      throws Unavailable {
    return client(resolve(flag, Env.system(), order), context, readTimeout);
  }

  private static String describe(final Source source) {
    return source instanceof Kubeconfig k
        ? "kubeconfig " + k.file() + " (" + k.origin() + ")"
        : "in-cluster config";
  }
}
