package io.inferencecache.natslocal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One {@code nats-server} child process with JetStream on, listening on 127.0.0.1 only. The port is
 * picked free once, at construction, and the store directory is created once, so {@link #restart()}
 * and {@link #start()} after {@link #kill()} bring the same broker back on the same address with
 * the same streams. Not thread-safe: drive it from the test thread.
 */
public final class NatsServer implements AutoCloseable {
  /** How long {@link #start()} waits for the "Server is ready" log line. */
  public static final long START_TIMEOUT_SECONDS = 20;

  private static final String READY_LINE = "Server is ready";

  private final String binary;
  private final int port;
  private final Path root;
  private final Path store;
  private final List<String> extraArgs;
  private Process process;
  private int starts;

  private NatsServer(final String binary, final List<String> extraArgs) {
    this.binary = binary;
    this.extraArgs = List.copyOf(extraArgs);
    this.port = freeLoopbackPort();
    try {
      this.root = Files.createTempDirectory("nats-local");
      this.store = Files.createDirectories(root.resolve("store"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the nats-server store", e);
    }
  }

  /**
   * A server not yet started, on a free loopback port and a fresh temporary store.
   *
   * @param extraArgs more {@code nats-server} arguments (for example {@code --max_payload})
   */
  public static NatsServer create(final String... extraArgs) {
    return new NatsServer(findBinary(), List.of(extraArgs));
  }

  /** The {@code nats-server} executable: on {@code PATH}, else Debian's {@code /usr/sbin}. */
  public static String findBinary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      final Path p = Path.of(dir.isEmpty() ? "." : dir, "nats-server");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    final Path debian = Path.of("/usr/sbin/nats-server");
    if (Files.isExecutable(debian)) {
      return debian.toString();
    }
    throw new IllegalStateException(
        "nats-server not found on PATH or at /usr/sbin: run bin/test, which installs what the tests need (or: apt-get install nats-server)");
  }

  /** Starts the process and waits until it is ready. No-op when it is running. */
  public NatsServer start() {
    if (isRunning()) {
      return this;
    }
    final Path log = root.resolve("nats-" + (++starts) + ".log");
    final List<String> cmd = new ArrayList<>();
    cmd.add(binary);
    cmd.addAll(
        List.of("-a", "127.0.0.1", "-p", Integer.toString(port), "-js", "-sd", store.toString()));
    cmd.addAll(extraArgs);
    try {
      process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
    while (true) {
      final String text = read(log);
      if (text.contains(READY_LINE)) {
        return this;
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "nats-server did not become ready (exit "
                + (process.isAlive() ? "none" : process.exitValue())
                + "): "
                + text);
      }
      try {
        process.waitFor(20, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting nats-server", e);
      }
    }
  }

  /** Stops the process gracefully (SIGTERM to its PID) and waits for it to exit. */
  public void stop() {
    end(false);
  }

  /** Kills the process with SIGKILL (as {@code kill -9 PID}) and waits for it to exit. */
  public void kill() {
    end(true);
  }

  /** {@link #stop()} then {@link #start()}: same port, same store. */
  public NatsServer restart() {
    stop();
    return start();
  }

  private void end(final boolean forcibly) {
    if (process == null) {
      return;
    }
    final ProcessHandle handle = process.toHandle();
    if (forcibly) {
      handle.destroyForcibly();
    } else {
      handle.destroy();
    }
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        handle.destroyForcibly();
        process.waitFor(15, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** Whether the process is alive. */
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The PID of the running process, or -1. */
  public long pid() {
    return isRunning() ? process.pid() : -1;
  }

  /** The client URL, {@code nats://127.0.0.1:PORT} (valid across restarts). */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** The client port. */
  public int port() {
    return port;
  }

  /** The JetStream store directory. */
  public Path storeDir() {
    return store;
  }

  /** Everything the process logged since its last start. */
  public String log() {
    return read(root.resolve("nats-" + starts + ".log"));
  }

  /** Kills the process and deletes the store. */
  @Override
  public void close() {
    kill();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temporary directory is harmless
    }
  }

  private static String read(final Path log) {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static int freeLoopbackPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }
}
