package io.inferencecache.servelocal;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code java -jar inference-cache.jar serve} child process: gRPC and HTTP on loopback ports
 * picked at construction and kept across restarts (clients reconnect to the same address), the
 * snapshot listener on an ephemeral loopback port, auth off, text logs, the caller's YAML file, and
 * one log file per start in the caller's directory. Ended by PID ({@code kill -9} or SIGTERM).
 */
public final class ServeChild implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static final Pattern READER_STARTED =
      Pattern.compile(
          "\\[(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3})\\][^\\n]*event=replication_reader_started");
  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

  private final String jar;
  private final List<String> jvmOptions;
  private final Path dir;
  private final Path config;
  private final int grpcPort = freePort();
  private final int httpPort = freePort();
  private Process process;
  private long startedNanos;
  private int starts;
  private ManagedChannel channel;

  /**
   * @param jar the product's executable jar
   * @param jvmOptions options before {@code -jar} (heap, JIT)
   * @param dir working directory for its config file and logs (created)
   * @param yaml the configuration file's content
   */
  public ServeChild(
      final String jar, final List<String> jvmOptions, final Path dir, final String yaml) {
    this.jar = jar;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.dir = dir;
    this.config = dir.resolve("serve.yaml");
    try {
      Files.createDirectories(dir);
      Files.writeString(config, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the process without waiting; the time to ready counts from here. */
  public ServeChild start() {
    final List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-jar", jar, "serve"));
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
      startedNanos = System.nanoTime();
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

  /**
   * Waits for {@code /readyz} 200 and returns the milliseconds since {@link #start()}.
   *
   * @throws IllegalStateException when the process exits or the bound passes, naming its log
   */
  public long awaitReadyMillis(final Duration bound) {
    final long deadline = startedNanos + bound.toNanos();
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IllegalStateException("serve exited before ready; log " + logFile());
      }
      if (status("/readyz") == 200) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
    throw new IllegalStateException("serve not ready within " + bound + "; log " + logFile());
  }

  /** As {@link #awaitReadyMillis}, for chaining. */
  public ServeChild awaitReady(final Duration bound) {
    awaitReadyMillis(bound);
    return this;
  }

  /** The HTTP status of a GET of {@code path} on its public listener, or -1 when unreachable. */
  public int status(final String path) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(http(path))).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The value of an unlabelled sample on {@code /metrics}, or -1 when absent or unreachable. */
  public double metric(final String name) {
    try {
      final String body =
          HTTP.send(
                  HttpRequest.newBuilder(URI.create(http("/metrics")))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      final Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(body);
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** {@code inferencecache_replication_applied_sequence}, or -1. */
  public long appliedSequence() {
    return (long) metric("inferencecache_replication_applied_sequence");
  }

  /**
   * Waits until the applied stream sequence is at least {@code sequence}; returns the milliseconds
   * it took.
   *
   * @throws IllegalStateException when the bound passes, naming its log
   */
  public long awaitApplied(final long sequence, final Duration bound) {
    final long t0 = System.nanoTime();
    final long deadline = t0 + bound.toNanos();
    while (appliedSequence() < sequence) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "applied sequence "
                + appliedSequence()
                + " < "
                + sequence
                + " after "
                + bound
                + "; log "
                + logFile());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  /**
   * Milliseconds from the current start's stream-reader start ({@code
   * event=replication_reader_started}, the log's UTC time) to now: called right after {@link
   * #awaitReadyMillis}, the catch-up part of the ready time. -1 when the line is missing.
   */
  public long millisSinceReaderStarted() {
    final long now = System.currentTimeMillis();
    final Matcher m = READER_STARTED.matcher(log());
    long at = -1;
    while (m.find()) {
      at = LocalDateTime.parse(m.group(1), LOG_TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
    }
    return at < 0 ? -1 : now - at;
  }

  /** A plaintext channel to the gRPC port (kept across restarts). */
  public synchronized ManagedChannel channel() {
    if (channel == null) {
      channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
    }
    return channel;
  }

  /** Its gRPC target, {@code 127.0.0.1:port}. */
  public String grpcTarget() {
    return "127.0.0.1:" + grpcPort;
  }

  /** The URL of {@code path} on its public HTTP listener. */
  public String http(final String path) {
    return "http://127.0.0.1:" + httpPort + path;
  }

  /** Whether the current start's process is running. */
  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** {@code kill -9 PID}, and waits for the exit. */
  public void kill() {
    end(true);
  }

  /** SIGTERM to the PID, and waits for the exit (SIGKILL after 60 s). */
  public void stop() {
    end(false);
  }

  private void end(final boolean forcibly) {
    if (process == null) {
      return;
    }
    if (forcibly) {
      process.toHandle().destroyForcibly();
    } else {
      process.toHandle().destroy();
    }
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.toHandle().destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** The current start's log file. */
  public Path logFile() {
    return dir.resolve("serve-" + starts + ".log");
  }

  /** Everything the current (or last) start logged. */
  public String log() {
    try {
      return Files.readString(logFile(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Closes the channel and kills the process. */
  @Override
  public synchronized void close() {
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
    kill();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
