package io.inferencecache.natslocal;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link NatsServer} for a test class ({@code static} field with
 * {@code @RegisterExtension}) or for each test method (instance field), and kills it and deletes
 * its store afterwards. Tests drive faults through {@link #server()}: {@link NatsServer#kill()},
 * {@link NatsServer#start()}, {@link NatsServer#restart()}; a server a test left stopped is simply
 * cleaned up.
 *
 * <pre>{@code
 * @RegisterExtension static final NatsServerExtension NATS = new NatsServerExtension();
 * ... Nats.connect(NATS.url()) ...
 * }</pre>
 */
public final class NatsServerExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private final String[] extraArgs;
  private NatsServer server;
  private boolean perClass;

  /**
   * @param extraArgs more {@code nats-server} arguments, for every start
   */
  public NatsServerExtension(final String... extraArgs) {
    this.extraArgs = extraArgs.clone();
  }

  @Override
  public void beforeAll(final ExtensionContext context) {
    perClass = true;
    server = NatsServer.create(extraArgs).start();
  }

  @Override
  public void afterAll(final ExtensionContext context) {
    closeServer();
  }

  @Override
  public void beforeEach(final ExtensionContext context) {
    if (!perClass) {
      server = NatsServer.create(extraArgs).start();
    }
  }

  @Override
  public void afterEach(final ExtensionContext context) {
    if (!perClass) {
      closeServer();
    }
  }

  private void closeServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** The running (or test-stopped) server. */
  public NatsServer server() {
    if (server == null) {
      throw new IllegalStateException("NatsServerExtension is not active here");
    }
    return server;
  }

  /** The client URL of {@link #server()}. */
  public String url() {
    return server().url();
  }
}
