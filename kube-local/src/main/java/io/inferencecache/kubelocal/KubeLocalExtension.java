package io.inferencecache.kubelocal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one kube-local per JVM on first use and injects it as a {@link KubeLocal} parameter. Use
 * it through {@link KubeLocalTest}.
 *
 * <p>The instance is stopped by PID when the JUnit run ends (the root store closes it), by a JVM
 * shutdown hook otherwise, and, should the JVM be killed, by the watcher {@code bin/kube-local up
 * --owner} leaves behind. A start that failed is not retried: every later class gets the same error
 * at once.
 *
 * <p>Where things are found: the script is {@code bin/kube-local} in the nearest directory at or
 * above the working directory that has one (system property {@code kubelocal.script} overrides);
 * kubectl is {@code /usr/bin/kubectl} ({@code kubelocal.kubectl}); each instance gets a new
 * temporary data directory. If kube-apiserver was never built on this machine the script builds it
 * first ({@code bin/kube-local-build}, 20-50 minutes on 2 busy cores; needs root for {@code apt-get
 * install}).
 */
public final class KubeLocalExtension implements BeforeAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KubeLocalExtension.class);

  private static final Object LOCK = new Object();
  private static KubeLocal shared;
  private static RuntimeException startFailure;

  /** Public for JUnit's {@code @ExtendWith}. */
  public KubeLocalExtension() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    started(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KubeLocal.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return started(context);
  }

  private static KubeLocal started(ExtensionContext context) {
    KubeLocal kube = shared();
    context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(StopAtEnd.class, key -> new StopAtEnd(), StopAtEnd.class);
    return kube;
  }

  /** The JVM's kube-local, started on the first call. */
  static KubeLocal shared() {
    synchronized (LOCK) {
      if (startFailure != null) {
        throw startFailure;
      }
      if (shared == null) {
        try {
          Path directory = Files.createTempDirectory("kube-local-");
          shared = KubeLocal.start(script(), directory, kubectl());
        } catch (IOException e) {
          startFailure = new UncheckedIOException("cannot create kube-local's directory", e);
          throw startFailure;
        } catch (RuntimeException e) {
          startFailure = e;
          throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(KubeLocalExtension::stopShared));
      }
      return shared;
    }
  }

  private static void stopShared() {
    synchronized (LOCK) {
      if (shared != null) {
        shared.stop();
        shared = null;
        startFailure = new IllegalStateException("kube-local was stopped at the end of the run");
      }
    }
  }

  private static Path script() {
    String configured = System.getProperty("kubelocal.script");
    if (configured != null) {
      return Path.of(configured).toAbsolutePath();
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("bin/kube-local");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "bin/kube-local not found at or above "
            + Path.of("").toAbsolutePath()
            + "; run the tests inside the repository or set -Dkubelocal.script=/path/to/bin/kube-local");
  }

  private static Path kubectl() {
    Path kubectl = Path.of(System.getProperty("kubelocal.kubectl", "/usr/bin/kubectl"));
    if (!Files.isExecutable(kubectl)) {
      throw new IllegalStateException(
          "kubectl not found at " + kubectl + " (set -Dkubelocal.kubectl=/path/to/kubectl)");
    }
    return kubectl;
  }

  /** Closed by JUnit when the run's root context ends. */
  private static final class StopAtEnd implements AutoCloseable {
    @Override
    public void close() {
      stopShared();
    }
  }
}
