package io.inferencecache.controlplane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.core.setup.Bootstrap;
import io.inferencecache.controlplane.server.config.ControlPlaneConfiguration;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.core.Listeners;
import io.inferencecache.controlplane.server.core.StartupChecks;
import io.inferencecache.controlplane.server.core.StartupException;
import io.inferencecache.engine.IndexListener;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Fuzzes {@code serve --config FILE}: the YAML bytes go through the same chain as {@code serve}
 * ({@code ${ENV:-default}} substitution, Dropwizard's YAML factory, validation, log settings —
 * {@link ServeLauncher#readConfiguration}) and then through the start-up checks that do not touch
 * the network or the file system (auth flags, TLS pair, listener addresses). Whatever the bytes,
 * the result is a configuration or a configuration error — {@link ConfigurationException}, {@link
 * IOException} or {@link StartupException} with exit code 2 — and, of the listener check, exit 1
 * for an address that cannot be listened on (documented). A configuration that validates also makes
 * a valid index configuration ({@code IndexConfig.conclude()} does not throw at start). No server,
 * client, file or logging backend is started.
 *
 * <p>Regression mode (CI) replays {@code ServeConfigurationFuzzTestInputs/load/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class ServeConfigurationFuzzTest {
  private static volatile byte[] current = new byte[0];
  private static final Bootstrap<ControlPlaneConfiguration> BOOTSTRAP = bootstrap();

  private static Bootstrap<ControlPlaneConfiguration> bootstrap() {
    final ControlPlaneApplication app = new ControlPlaneApplication(null);
    final Bootstrap<ControlPlaneConfiguration> b = new Bootstrap<>(app);
    b.setConfigurationSourceProvider(path -> new ByteArrayInputStream(current));
    app.initialize(b); // wraps the provider in the ${ENV:-default} substitution, as serve does
    return b;
  }

  @FuzzTest(maxDuration = "2m")
  void load(final byte[] bytes) {
    current = bytes;
    final ControlPlaneConfiguration config;
    try {
      config = ServeLauncher.readConfiguration(BOOTSTRAP, ServeOverrides.NONE, "fuzz.yaml");
    } catch (ConfigurationException | IOException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    } catch (StartupException expected) {
      assertThat(expected.exitCode()).isEqualTo(StartupException.USAGE);
      return;
    }
    assertThat(config).isNotNull();
    config.getIndex().toIndexConfig(IndexListener.NOOP).conclude();
    try {
      StartupChecks.authFlags(config.getAuth());
      StartupChecks.tlsPair(config.getTls());
    } catch (StartupException expected) {
      assertThat(expected.exitCode()).isEqualTo(StartupException.USAGE);
      return;
    }
    try {
      Listeners.install(config.getListeners(), config.getServerFactory());
    } catch (StartupException expected) {
      // exit 1: an address that cannot be listened on; exit 2: a server section that cannot
      // carry the listeners (not "default", or an admin connector on a listener port)
      assertThat(expected.exitCode()).isIn(StartupException.USAGE, StartupException.FAILURE);
    }
  }
}
