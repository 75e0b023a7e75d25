package io.inferencecache.controlplane.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationFactoryFactory;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.inferencecache.controlplane.server.auth.KubernetesTokenReviewer;
import io.inferencecache.controlplane.server.auth.TokenReviewer;
import io.inferencecache.controlplane.server.config.ControlPlaneConfiguration;
import io.inferencecache.controlplane.server.config.KubernetesClients;
import io.inferencecache.controlplane.server.config.KubernetesSettings;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.core.Listeners;
import io.inferencecache.controlplane.server.core.LogConfigurer;
import io.inferencecache.controlplane.server.core.StartupChecks;
import io.inferencecache.controlplane.server.core.StartupException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import net.sourceforge.argparse4j.inf.Namespace;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the server the way {@code serve} does, in process: parse the YAML (if any) with {@code
 * ${ENV:-default}} substitution, apply the flags, validate, configure logging, then the start-up
 * checks in the order of correction 12 (auth flags → Kubernetes client → TLS pair → TLS load →
 * listen), then Dropwizard's own server start. Every failure is a {@link StartupException} carrying
 * the exit code. Used by the CLI and by the integration tests.
 */
public final class ServeLauncher {
  private static final Logger LOG = LoggerFactory.getLogger("io.inferencecache.controlplane");

  /** Builds the TokenReview client from the Kubernetes settings. */
  @FunctionalInterface
  public interface ReviewerFactory {
    TokenReviewer create(KubernetesSettings settings) throws IOException;
  }

  /** The official client against the configured API server. */
  public static final ReviewerFactory KUBERNETES =
      s -> new KubernetesTokenReviewer(KubernetesClients.build(s));

  private ServeLauncher() {}

  /** A started server. */
  public static final class Running {
    private final Server server;
    private final ControlPlaneApplication app;

    Running(final Server server, final ControlPlaneApplication app) {
      this.server = server;
      this.app = app;
    }

    public Server server() {
      return server;
    }

    public ControlPlaneApplication application() {
      return app;
    }

    /** The bound port of the listener named {@code listenerName}, or -1. */
    public int port(final String listenerName) {
      for (final Connector c : server.getConnectors()) {
        if (listenerName.equals(c.getName()) && c instanceof NetworkConnector n) {
          return n.getLocalPort();
        }
      }
      return -1;
    }

    /** Stops gracefully (blocks until the index is closed). */
    public void stop() throws Exception {
      server.stop();
    }

    /** Blocks until the server has stopped. */
    public void join() throws InterruptedException {
      server.join();
    }
  }

  /**
   * Starts a server.
   *
   * @param configFile the YAML file, or {@code null} for the defaults
   * @throws StartupException with the exit code of the failed step
   */
  public static Running start(
      final ControlPlaneApplication app,
      final ServeOverrides flags,
      final String configFile,
      final ReviewerFactory reviewers) {
    final Bootstrap<ControlPlaneConfiguration> bootstrap = new Bootstrap<>(app);
    app.initialize(bootstrap);
    bootstrap.setConfigurationFactoryFactory(new OverridingFactoryFactory(flags));
    final ServeCommand command = new ServeCommand(app, reviewers);
    final Map<String, Object> attrs = new HashMap<>();
    attrs.put("file", configFile);
    try {
      command.run(bootstrap, new Namespace(attrs));
    } catch (StartupException e) {
      throw e;
    } catch (ConfigurationException e) {
      throw new StartupException(StartupException.USAGE, "server: " + e.getMessage().strip(), e);
    } catch (IOException e) {
      throw new StartupException(
          StartupException.USAGE, "server: read configuration: " + e.getMessage(), e);
    } catch (Exception e) {
      throw new StartupException(StartupException.FAILURE, "server: " + e.getMessage(), e);
    }
    return new Running(command.server, app);
  }

  /**
   * Reads the configuration the way {@link #start} does, without starting anything: {@code
   * bootstrap}'s source provider (after {@link ControlPlaneApplication#initialize}: {@code
   * ${ENV:-default}} substitution), Dropwizard's YAML factory, the flags, validation, the log
   * settings. ({@link #start} also configures logging and runs the start-up checks after this.)
   *
   * @param path the file, or {@code null} for the defaults
   * @throws ConfigurationException an invalid file ({@link #start}: exit 2, the message names the
   *     setting)
   * @throws IOException the file cannot be read ({@link #start}: exit 2)
   * @throws StartupException exit 2: an invalid {@code log.format} / {@code log.level}
   */
  public static ControlPlaneConfiguration readConfiguration(
      final Bootstrap<ControlPlaneConfiguration> bootstrap,
      final ServeOverrides flags,
      final String path)
      throws IOException, ConfigurationException {
    final ConfigurationFactory<ControlPlaneConfiguration> factory =
        new OverridingFactoryFactory(flags)
            .create(
                ControlPlaneConfiguration.class,
                bootstrap.getValidatorFactory().getValidator(),
                bootstrap.getObjectMapper(),
                "dw");
    return path == null
        ? factory.build()
        : factory.build(bootstrap.getConfigurationSourceProvider(), path);
  }

  /** Dropwizard's {@code server} command with the start-up checks before the environment. */
  private static final class ServeCommand extends ServerCommand<ControlPlaneConfiguration> {
    private final ControlPlaneApplication app;
    private final ReviewerFactory reviewers;
    private Server server;

    ServeCommand(final ControlPlaneApplication app, final ReviewerFactory reviewers) {
      super(app);
      this.app = app;
      this.reviewers = reviewers;
    }

    @Override
    protected void run(
        final Bootstrap<ControlPlaneConfiguration> bootstrap,
        final Namespace namespace,
        final ControlPlaneConfiguration config)
        throws Exception {
      StartupChecks.authFlags(config.getAuth());
      TokenReviewer reviewer = null;
      if (!config.getAuth().isInsecureDisableAuth()) {
        try {
          reviewer = reviewers.create(config.getKubernetes());
        } catch (IOException | RuntimeException e) {
          throw new StartupException(
              StartupException.FAILURE, "server: kubernetes client: " + e.getMessage(), e);
        }
      }
      StartupChecks.tlsPair(config.getTls());
      StartupChecks.tlsLoad(config.getTls());
      Listeners.install(config.getListeners(), config.getServerFactory());
      app.reviewer(reviewer);
      try {
        super.run(bootstrap, namespace, config);
      } catch (StartupException e) {
        throw e;
      } catch (Exception e) {
        LOG.error("serve_error error=\"{}\"", e.getMessage());
        throw new StartupException(StartupException.FAILURE, "server: " + e.getMessage(), e);
      }
    }

    @Override
    protected void run(
        final Environment environment,
        final Namespace namespace,
        final ControlPlaneConfiguration configuration)
        throws Exception {
      super.run(environment, namespace, configuration);
      server = environment.getApplicationContext().getServer();
    }
  }

  /** Parses as Dropwizard does, then applies the flags, re-validates and applies log settings. */
  private static final class OverridingFactoryFactory
      implements ConfigurationFactoryFactory<ControlPlaneConfiguration> {
    private final ServeOverrides flags;

    OverridingFactoryFactory(final ServeOverrides flags) {
      this.flags = flags;
    }

    @Override
    public ConfigurationFactory<ControlPlaneConfiguration> create(
        final Class<ControlPlaneConfiguration> klass,
        final Validator validator,
        final ObjectMapper objectMapper,
        final String propertyPrefix) {
      final ConfigurationFactory<ControlPlaneConfiguration> base =
          new DefaultConfigurationFactoryFactory<ControlPlaneConfiguration>()
              .create(klass, validator, objectMapper, propertyPrefix);
      return new ConfigurationFactory<>() {
        @Override
        public ControlPlaneConfiguration build(
            final ConfigurationSourceProvider provider, final String path)
            throws IOException, ConfigurationException {
          return finish(base.build(provider, path), path, validator);
        }

        @Override
        public ControlPlaneConfiguration build() throws IOException, ConfigurationException {
          return finish(base.build(), "flags", validator);
        }
      };
    }

    private ControlPlaneConfiguration finish(
        final ControlPlaneConfiguration config, final String path, final Validator validator)
        throws ConfigurationException {
      flags.applyTo(config);
      final Set<ConstraintViolation<ControlPlaneConfiguration>> violations =
          validator.validate(config);
      if (!violations.isEmpty()) {
        throw new ConfigurationValidationException(path, violations);
      }
      LogConfigurer.apply(config.getLog(), config.getLoggingFactory());
      return config;
    }
  }
}
