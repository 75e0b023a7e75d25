package io.inferencecache.controlplane.support;

import io.inferencecache.controlplane.server.ControlPlaneApplication;
import io.inferencecache.controlplane.server.ServeLauncher;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.core.ListenerConnectorFactory;
import io.inferencecache.controlplane.server.core.NettyGrpcLifecycle;
import io.inferencecache.engine.CacheIndex;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A whole server in process, on ephemeral loopback ports, started like {@code serve}. */
public final class TestServer implements AutoCloseable {
  private final ServeLauncher.Running running;

  private TestServer(final ServeLauncher.Running running) {
    this.running = running;
  }

  /** Starts with {@code flags} (listeners forced to 127.0.0.1:0) and an optional YAML body. */
  public static TestServer start(final ServeOverrides flags, final String yaml) throws IOException {
    String file = null;
    if (yaml != null) {
      final Path p = Files.createTempFile("inference-cache-", ".yml");
      Files.writeString(p, yaml, StandardCharsets.UTF_8);
      p.toFile().deleteOnExit();
      file = p.toString();
    }
    final ServeOverrides f = flags.withListeners("127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0");
    return new TestServer(
        ServeLauncher.start(
            new ControlPlaneApplication(NettyGrpcLifecycle.FACTORY),
            f,
            file,
            ServeLauncher.KUBERNETES));
  }

  public String publicUrl(final String path) {
    return "http://127.0.0.1:" + running.port(ListenerConnectorFactory.PUBLIC) + path;
  }

  public String snapshotUrl(final String path) {
    return "http://127.0.0.1:" + running.port(ListenerConnectorFactory.SNAPSHOT) + path;
  }

  /** The gRPC server's bound port. */
  public int grpcPort() {
    return running
        .application()
        .wiring()
        .grpc()
        .withServer(s -> ((NettyGrpcLifecycle) s).port(), -1);
  }

  public CacheIndex index() {
    return running.application().wiring().index().get();
  }

  public ControlPlaneApplication.Wiring wiring() {
    return running.application().wiring();
  }

  public void stop() {
    try {
      running.stop();
    } catch (Exception e) {
      throw new IllegalStateException("stop failed", e);
    }
  }

  @Override
  public void close() {
    if (!running.server().isStopped()) {
      stop();
    }
  }
}
