package io.inferencecache.service.server;

import io.inferencecache.service.tls.TlsConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the gRPC listener: bind address, executor bounds, inbound limits, keepalive policy,
 * drain timeout and optional server TLS.
 *
 * <p>Every setting has a {@code *_DEFAULT} constant (the upstream value where upstream has one) and
 * a setter on {@link Builder}. {@link Builder#build()} validates everything once, before any
 * thread, socket or file is touched, and throws {@link IllegalArgumentException} naming the
 * offending setting (its command-line flag where one exists), or {@link TlsConfigException} of kind
 * {@link TlsConfigException.Kind#PARTIAL} when exactly one of the TLS files is given. The TLS files
 * themselves are read later, by {@link GrpcServer}.
 *
 * <p>Instances are immutable and thread-safe. Builders are not thread-safe.
 */
public final class GrpcServerConfig {
  /** Flag name of the bind address, used in error messages. */
  public static final String BIND_ADDRESS_FLAG = "--grpc-bind-address";

  /** Flag name of the certificate file, used in error messages. */
  public static final String TLS_CERT_FILE_FLAG = "--tls-cert-file";

  /** Flag name of the private key file, used in error messages. */
  public static final String TLS_KEY_FILE_FLAG = "--tls-key-file";

  /** Upstream's default: every interface, port 9090. */
  public static final String BIND_ADDRESS_DEFAULT = ":9090";

  /** Threads that run RPC handlers: {@code max(2, available processors)}. */
  public static final int EXECUTOR_THREADS_DEFAULT =
      Math.max(2, Runtime.getRuntime().availableProcessors());

  /** Upper bound of {@link Builder#executorThreads(int)}. */
  public static final int EXECUTOR_THREADS_MAX = 1024;

  /**
   * Handler tasks that may wait for a free executor thread; while that many wait, new calls are
   * refused at once with {@code RESOURCE_EXHAUSTED} (see {@link GrpcServer}).
   */
  public static final int EXECUTOR_QUEUE_CAPACITY_DEFAULT = 1024;

  /**
   * The longest wait for a handler thread: 1 s. New calls are shed once the oldest waiting task or
   * the wait expected for the new call exceeds it, and a call reached only after waiting longer is
   * shed then (see {@link GrpcServer}). Bounds the queue in time as {@code executorQueueCapacity}
   * bounds it in count, for a server so slow (CPU-starved) that 1,024 waiting calls would outlast
   * the clients' deadlines.
   */
  public static final Duration MAX_QUEUE_DELAY_DEFAULT = Duration.ofSeconds(1);

  /** Upper bound of {@link Builder#executorQueueCapacity(int)}. */
  public static final int EXECUTOR_QUEUE_CAPACITY_MAX = 1 << 20;

  /** Netty event-loop (I/O) threads: {@code max(1, available processors)}. */
  public static final int EVENT_LOOP_THREADS_DEFAULT =
      Math.max(1, Runtime.getRuntime().availableProcessors());

  /** Upstream's (grpc-go's) default receive limit: 4 MiB. */
  public static final int MAX_INBOUND_MESSAGE_SIZE_DEFAULT = 4 * 1024 * 1024;

  /** Limit on the size of received headers and trailers: 8 KiB (gRPC's default). */
  public static final int MAX_INBOUND_METADATA_SIZE_DEFAULT = 8 * 1024;

  /** Time without reads after which the server pings the client: 2 h (gRPC's default). */
  public static final Duration KEEP_ALIVE_TIME_DEFAULT = Duration.ofHours(2);

  /** Time to wait for a keepalive ping's ack before closing the connection: 20 s. */
  public static final Duration KEEP_ALIVE_TIMEOUT_DEFAULT = Duration.ofSeconds(20);

  /**
   * Most frequent client keepalive ping the server tolerates while calls are active: 10 s. Clients
   * that ping faster get GOAWAY {@code ENHANCE_YOUR_CALM} ("too_many_pings") after a few strikes.
   */
  public static final Duration PERMIT_KEEP_ALIVE_TIME_DEFAULT = Duration.ofSeconds(10);

  /**
   * Pings on a connection without active calls are not permitted (at most one per 2 h counts as
   * acceptable), so an idle ping flood is answered with GOAWAY.
   */
  public static final boolean PERMIT_KEEP_ALIVE_WITHOUT_CALLS_DEFAULT = false;

  /**
   * A connection without calls for this long is closed with GOAWAY: 5 min. Clients reconnect on
   * their next call; open streams (ReportCacheState, StreamCacheEvents) keep a connection busy.
   * {@link Duration#ZERO} disables it.
   */
  public static final Duration MAX_CONNECTION_IDLE_DEFAULT = Duration.ofMinutes(5);

  /**
   * Time a new connection has to complete its TLS and HTTP/2 handshake (the client's connection
   * preface and first SETTINGS) before it is closed: 10 s. Bounds silent TCP connections.
   */
  public static final Duration HANDSHAKE_TIMEOUT_DEFAULT = Duration.ofSeconds(10);

  /**
   * Open connections at which newly accepted ones are closed at once: 10,000. Zero disables the cap
   * (the process's file-descriptor limit then applies).
   */
  public static final int MAX_CONNECTIONS_DEFAULT = 10_000;

  /**
   * HTTP/2 {@code MAX_CONCURRENT_STREAMS} advertised per connection. Calls beyond it wait on the
   * client for a free stream; they are not failed.
   */
  public static final int MAX_CONCURRENT_CALLS_PER_CONNECTION_DEFAULT = 1024;

  /** How long {@link GrpcServer#close()} lets in-flight calls finish: 5 s (upstream's). */
  public static final Duration SHUTDOWN_DRAIN_TIMEOUT_DEFAULT = Duration.ofSeconds(5);

  /** Empty: plaintext. */
  public static final String TLS_CERT_FILE_DEFAULT = "";

  /** Empty: plaintext. */
  public static final String TLS_KEY_FILE_DEFAULT = "";

  /** Exact message for a TLS pair given by halves (the application maps it to exit code 2). */
  public static final String TLS_PARTIAL_MESSAGE =
      TLS_CERT_FILE_FLAG + " and " + TLS_KEY_FILE_FLAG + " must both be set or both be empty";

  private final BindAddress bindAddress;
  private final int executorThreads;
  private final int executorQueueCapacity;
  private final Duration maxQueueDelay;
  private final int eventLoopThreads;
  private final int maxInboundMessageSize;
  private final int maxInboundMetadataSize;
  private final Duration keepAliveTime;
  private final Duration keepAliveTimeout;
  private final Duration permitKeepAliveTime;
  private final boolean permitKeepAliveWithoutCalls;
  private final Duration maxConnectionIdle;
  private final Duration handshakeTimeout;
  private final int maxConnections;
  private final int maxConcurrentCallsPerConnection;
  private final Duration shutdownDrainTimeout;
  private final String tlsCertFile;
  private final String tlsKeyFile;

  private GrpcServerConfig(final Builder b) {
    this.bindAddress = b.bindAddress;
    this.executorThreads = b.executorThreads;
    this.executorQueueCapacity = b.executorQueueCapacity;
    this.maxQueueDelay = b.maxQueueDelay;
    this.eventLoopThreads = b.eventLoopThreads;
    this.maxInboundMessageSize = b.maxInboundMessageSize;
    this.maxInboundMetadataSize = b.maxInboundMetadataSize;
    this.keepAliveTime = b.keepAliveTime;
    this.keepAliveTimeout = b.keepAliveTimeout;
    this.permitKeepAliveTime = b.permitKeepAliveTime;
    this.permitKeepAliveWithoutCalls = b.permitKeepAliveWithoutCalls;
    this.maxConnectionIdle = b.maxConnectionIdle;
    this.handshakeTimeout = b.handshakeTimeout;
    this.maxConnections = b.maxConnections;
    this.maxConcurrentCallsPerConnection = b.maxConcurrentCallsPerConnection;
    this.shutdownDrainTimeout = b.shutdownDrainTimeout;
    this.tlsCertFile = b.tlsCertFile;
    this.tlsKeyFile = b.tlsKeyFile;
  }

  /** A builder holding every {@code *_DEFAULT}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Every setting at its default. */
  public static GrpcServerConfig defaults() {
    return builder().build();
  }

  /** Where the listener binds. */
  public BindAddress bindAddress() {
    return bindAddress;
  }

  /** Fixed number of handler threads. */
  public int executorThreads() {
    return executorThreads;
  }

  /** Waiting handler tasks at which new calls are refused. */
  public int executorQueueCapacity() {
    return executorQueueCapacity;
  }

  /** Oldest handler task's wait at which new calls are shed. */
  public Duration maxQueueDelay() {
    return maxQueueDelay;
  }

  /** Netty I/O threads. */
  public int eventLoopThreads() {
    return eventLoopThreads;
  }

  /** Largest accepted request message, in bytes (larger: {@code RESOURCE_EXHAUSTED}). */
  public int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  /** Largest accepted request metadata, in bytes. */
  public int maxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  /** Server keepalive ping interval. */
  public Duration keepAliveTime() {
    return keepAliveTime;
  }

  /** Server keepalive ack timeout. */
  public Duration keepAliveTimeout() {
    return keepAliveTimeout;
  }

  /** Most frequent client ping tolerated. */
  public Duration permitKeepAliveTime() {
    return permitKeepAliveTime;
  }

  /** Whether client pings are tolerated on a connection without calls. */
  public boolean permitKeepAliveWithoutCalls() {
    return permitKeepAliveWithoutCalls;
  }

  /** Idle timeout of a connection; zero = never. */
  public Duration maxConnectionIdle() {
    return maxConnectionIdle;
  }

  /** Time a new connection has to finish its TLS and HTTP/2 handshake. */
  public Duration handshakeTimeout() {
    return handshakeTimeout;
  }

  /** Open-connection cap; zero = none. */
  public int maxConnections() {
    return maxConnections;
  }

  /** HTTP/2 concurrent-stream limit per connection. */
  public int maxConcurrentCallsPerConnection() {
    return maxConcurrentCallsPerConnection;
  }

  /** Graceful-shutdown budget for in-flight calls. */
  public Duration shutdownDrainTimeout() {
    return shutdownDrainTimeout;
  }

  /** PEM certificate chain file; empty when TLS is off. */
  public String tlsCertFile() {
    return tlsCertFile;
  }

  /** PEM private key file; empty when TLS is off. */
  public String tlsKeyFile() {
    return tlsKeyFile;
  }

  /** True when both TLS files are set. */
  public boolean tlsEnabled() {
    return !tlsCertFile.isEmpty();
  }

  @Override
  public String toString() {
    return "GrpcServerConfig{bindAddress="
        + bindAddress
        + ", executorThreads="
        + executorThreads
        + ", executorQueueCapacity="
        + executorQueueCapacity
        + ", maxQueueDelay="
        + maxQueueDelay
        + ", eventLoopThreads="
        + eventLoopThreads
        + ", maxInboundMessageSize="
        + maxInboundMessageSize
        + ", maxInboundMetadataSize="
        + maxInboundMetadataSize
        + ", keepAliveTime="
        + keepAliveTime
        + ", keepAliveTimeout="
        + keepAliveTimeout
        + ", permitKeepAliveTime="
        + permitKeepAliveTime
        + ", permitKeepAliveWithoutCalls="
        + permitKeepAliveWithoutCalls
        + ", maxConnectionIdle="
        + maxConnectionIdle
        + ", handshakeTimeout="
        + handshakeTimeout
        + ", maxConnections="
        + maxConnections
        + ", maxConcurrentCallsPerConnection="
        + maxConcurrentCallsPerConnection
        + ", shutdownDrainTimeout="
        + shutdownDrainTimeout
        + ", tlsCertFile='"
        + tlsCertFile
        + "', tlsKeyFile='"
        + tlsKeyFile
        + "'}";
  }

  /**
   * Mutable collector of settings; {@link #build()} validates. Not thread-safe. Setters accept any
   * value; range checks happen in {@link #build()} so that every error names its setting.
   */
  public static final class Builder {
    private BindAddress bindAddress = BindAddress.parse(BIND_ADDRESS_FLAG, BIND_ADDRESS_DEFAULT);
    private int executorThreads = EXECUTOR_THREADS_DEFAULT;
    private int executorQueueCapacity = EXECUTOR_QUEUE_CAPACITY_DEFAULT;
    private Duration maxQueueDelay = MAX_QUEUE_DELAY_DEFAULT;
    private int eventLoopThreads = EVENT_LOOP_THREADS_DEFAULT;
    private int maxInboundMessageSize = MAX_INBOUND_MESSAGE_SIZE_DEFAULT;
    private int maxInboundMetadataSize = MAX_INBOUND_METADATA_SIZE_DEFAULT;
    private Duration keepAliveTime = KEEP_ALIVE_TIME_DEFAULT;
    private Duration keepAliveTimeout = KEEP_ALIVE_TIMEOUT_DEFAULT;
    private Duration permitKeepAliveTime = PERMIT_KEEP_ALIVE_TIME_DEFAULT;
    private boolean permitKeepAliveWithoutCalls = PERMIT_KEEP_ALIVE_WITHOUT_CALLS_DEFAULT;
    private Duration maxConnectionIdle = MAX_CONNECTION_IDLE_DEFAULT;
    private Duration handshakeTimeout = HANDSHAKE_TIMEOUT_DEFAULT;
    private int maxConnections = MAX_CONNECTIONS_DEFAULT;
    private int maxConcurrentCallsPerConnection = MAX_CONCURRENT_CALLS_PER_CONNECTION_DEFAULT;
    private Duration shutdownDrainTimeout = SHUTDOWN_DRAIN_TIMEOUT_DEFAULT;
    private String tlsCertFile = TLS_CERT_FILE_DEFAULT;
    private String tlsKeyFile = TLS_KEY_FILE_DEFAULT;

    private Builder() {}

    /**
     * Parses and sets the bind address ({@code host:port} or {@code :port}).
     *
     * @throws IllegalArgumentException naming {@value #BIND_ADDRESS_FLAG} when the text is invalid
     */
    public Builder bindAddress(final String hostPort) {
      this.bindAddress = BindAddress.parse(BIND_ADDRESS_FLAG, hostPort);
      return this;
    }

    /** Sets the bind address. */
    public Builder bindAddress(final BindAddress address) {
      this.bindAddress = Objects.requireNonNull(address, "address");
      return this;
    }

    /** Handler threads, 1..{@value #EXECUTOR_THREADS_MAX}. */
    public Builder executorThreads(final int threads) {
      this.executorThreads = threads;
      return this;
    }

    /**
     * Waiting handler tasks at which new calls are refused, 1..{@value
     * #EXECUTOR_QUEUE_CAPACITY_MAX}.
     */
    public Builder executorQueueCapacity(final int capacity) {
      this.executorQueueCapacity = capacity;
      return this;
    }

    /** The longest wait for a handler thread before calls are shed, positive. */
    public Builder maxQueueDelay(final Duration delay) {
      this.maxQueueDelay = delay;
      return this;
    }

    /** Netty I/O threads, 1..{@value #EXECUTOR_THREADS_MAX}. */
    public Builder eventLoopThreads(final int threads) {
      this.eventLoopThreads = threads;
      return this;
    }

    /** Largest accepted request message in bytes, positive. */
    public Builder maxInboundMessageSize(final int bytes) {
      this.maxInboundMessageSize = bytes;
      return this;
    }

    /** Largest accepted request metadata in bytes, positive. */
    public Builder maxInboundMetadataSize(final int bytes) {
      this.maxInboundMetadataSize = bytes;
      return this;
    }

    /** Server keepalive ping interval, positive. */
    public Builder keepAliveTime(final Duration time) {
      this.keepAliveTime = time;
      return this;
    }

    /** Server keepalive ack timeout, positive. */
    public Builder keepAliveTimeout(final Duration timeout) {
      this.keepAliveTimeout = timeout;
      return this;
    }

    /** Most frequent client ping tolerated, zero or positive. */
    public Builder permitKeepAliveTime(final Duration time) {
      this.permitKeepAliveTime = time;
      return this;
    }

    /** Whether client pings are tolerated without active calls. */
    public Builder permitKeepAliveWithoutCalls(final boolean permit) {
      this.permitKeepAliveWithoutCalls = permit;
      return this;
    }

    /** Idle timeout of a connection; zero disables it. */
    public Builder maxConnectionIdle(final Duration idle) {
      this.maxConnectionIdle = idle;
      return this;
    }

    /** Time a new connection has to finish its TLS and HTTP/2 handshake, positive. */
    public Builder handshakeTimeout(final Duration timeout) {
      this.handshakeTimeout = timeout;
      return this;
    }

    /** Open-connection cap, zero (none) or positive. */
    public Builder maxConnections(final int connections) {
      this.maxConnections = connections;
      return this;
    }

    /** HTTP/2 concurrent-stream limit per connection, positive. */
    public Builder maxConcurrentCallsPerConnection(final int calls) {
      this.maxConcurrentCallsPerConnection = calls;
      return this;
    }

    /** Graceful-shutdown budget, zero or positive. */
    public Builder shutdownDrainTimeout(final Duration timeout) {
      this.shutdownDrainTimeout = timeout;
      return this;
    }

    /** PEM certificate chain file; empty for plaintext. Must be set together with the key. */
    public Builder tlsCertFile(final String path) {
      this.tlsCertFile = path;
      return this;
    }

    /** PEM private key file (PKCS#8, PKCS#1 RSA or SEC1 EC, unencrypted); empty for plaintext. */
    public Builder tlsKeyFile(final String path) {
      this.tlsKeyFile = path;
      return this;
    }

    /**
     * Validates every setting and returns the immutable config.
     *
     * @throws TlsConfigException of kind {@link TlsConfigException.Kind#PARTIAL} with message
     *     {@link #TLS_PARTIAL_MESSAGE} when exactly one TLS file is set
     * @throws IllegalArgumentException naming the setting when any other value is out of range
     */
    public GrpcServerConfig build() {
      Objects.requireNonNull(bindAddress, "bindAddress");
      requireRange("executorThreads", executorThreads, 1, EXECUTOR_THREADS_MAX);
      requireRange("executorQueueCapacity", executorQueueCapacity, 1, EXECUTOR_QUEUE_CAPACITY_MAX);
      requireRange("eventLoopThreads", eventLoopThreads, 1, EXECUTOR_THREADS_MAX);
      requireRange("maxInboundMessageSize", maxInboundMessageSize, 1, Integer.MAX_VALUE);
      requireRange("maxInboundMetadataSize", maxInboundMetadataSize, 1, Integer.MAX_VALUE);
      requireRange(
          "maxConcurrentCallsPerConnection", maxConcurrentCallsPerConnection, 1, Integer.MAX_VALUE);
      requirePositive("keepAliveTime", keepAliveTime);
      requirePositive("keepAliveTimeout", keepAliveTimeout);
      requireNotNegative("permitKeepAliveTime", permitKeepAliveTime);
      requireNotNegative("maxConnectionIdle", maxConnectionIdle);
      requirePositive("handshakeTimeout", handshakeTimeout);
      requirePositive("maxQueueDelay", maxQueueDelay);
      requireRange("maxConnections", maxConnections, 0, Integer.MAX_VALUE);
      requireNotNegative("shutdownDrainTimeout", shutdownDrainTimeout);
      final String cert = Objects.requireNonNull(tlsCertFile, TLS_CERT_FILE_FLAG);
      final String key = Objects.requireNonNull(tlsKeyFile, TLS_KEY_FILE_FLAG);
      if (cert.isEmpty() != key.isEmpty()) {
        throw new TlsConfigException(TlsConfigException.Kind.PARTIAL, TLS_PARTIAL_MESSAGE, null);
      }
      return new GrpcServerConfig(this);
    }

    private static void requireRange(
        final String setting, final int value, final int min, final int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            setting + ": must be in " + min + ".." + max + ", was " + value);
      }
    }

    private static void requirePositive(final String setting, final Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(setting + ": must be positive, was " + value);
      }
    }

    private static void requireNotNegative(final String setting, final Duration value) {
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException(setting + ": must not be negative, was " + value);
      }
    }
  }
}
