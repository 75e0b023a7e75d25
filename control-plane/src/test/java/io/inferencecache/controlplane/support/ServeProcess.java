package io.inferencecache.controlplane.support;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * One {@code java -jar target/inference-cache.jar serve} child process on loopback ports picked at
 * construction (kept across {@link #start()} after {@link #kill()}), auth off, a YAML file given by
 * the test, output in a log file per start. Stopped or killed by PID.
 */
public final class ServeProcess {
  private static final String JAR =
      System.getProperty("inferencecache.jar", "target/inference-cache.jar");

  private final Path dir;
  private final Path config;
  private final int grpcPort = freePort();
  private final int httpPort = freePort();
  private Process process;
  private int starts;
  private ManagedChannel channel;

  /**
   * @param dir working directory for its config and logs
   * @param yaml the configuration file's content
   */
  public ServeProcess(final Path dir, final String yaml) {
    this.dir = dir;
    this.config = dir.resolve("serve.yaml");
    try {
      Files.createDirectories(dir);
      Files.writeString(config, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the process (does not wait for readiness). */
  public ServeProcess start() {
    final List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.addAll(List.of("-Xmx384m", "-XX:TieredStopAtLevel=1", "-jar", JAR, "serve"));
    cmd.addAll(
        List.of(
            "--insecure-disable-auth",
            "--grpc-bind-address=127.0.0.1:" + grpcPort,
            "--http-bind-address=127.0.0.1:" + httpPort,
            "--snapshot-bind-address=127.0.0.1:0",
            "--log-format=text",
            "--config",
            config.toString()));
    try {
      process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("serve-" + (++starts) + ".log").toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start serve", e);
    }
    return this;
  }

  /** Waits until {@code /readyz} answers 200. */
  public ServeProcess awaitReady(final Duration bound) {
    Awaitility.await()
        .atMost(bound)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> Http.get(http("/readyz")).statusCode() == 200);
    return this;
  }

  /** {@code kill -9}: SIGKILL to the PID, waits for the exit. */
  public void kill() throws InterruptedException {
    end(true);
  }

  /** SIGTERM to the PID, waits for the exit. */
  public void stop() throws InterruptedException {
    end(false);
  }

  private void end(final boolean forcibly) throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
    if (process == null) {
      return;
    }
    if (forcibly) {
      process.toHandle().destroyForcibly();
    } else {
      process.toHandle().destroy();
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.toHandle().destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    process = null;
  }

  /** Its gRPC target, {@code 127.0.0.1:port}. */
  public String grpcTarget() {
    return "127.0.0.1:" + grpcPort;
  }

  /** A plaintext channel to its gRPC port (one per start). */
  public ManagedChannel channel() {
    if (channel == null) {
      channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
    }
    return channel;
  }

  /** The URL of a path on its public HTTP listener. */
  public String http(final String path) {
    return "http://127.0.0.1:" + httpPort + path;
  }

  /** The value of an unlabelled sample on {@code /metrics}, or -1 when absent. */
  public double metric(final String name) throws IOException, InterruptedException {
    final Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$")
            .matcher(Http.get(http("/metrics")).body());
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  /** Everything the current (or last) start logged. */
  public String log() {
    try {
      return Files.readString(dir.resolve("serve-" + starts + ".log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
