package io.inferencecache.service.server;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.inferencecache.service.admission.AdmissionControl;
import io.inferencecache.service.admission.ConnectionLimit;
import io.inferencecache.service.admission.ShedResponder;
import io.inferencecache.service.tls.ReloadingKeyManager;
import io.inferencecache.service.tls.TlsConfigException;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC listener: grpc-netty on Netty's native epoll transport when available (NIO otherwise), a
 * fixed handler pool that sheds new calls when saturated, the inbound and keepalive limits of
 * {@link GrpcServerConfig}, optional server TLS with certificate reload, {@code
 * grpc.health.v1.Health} (overall service {@code ""} SERVING from construction on, never flipped)
 * and server reflection (v1 and v1alpha), plus whatever services and interceptors the caller
 * registers.
 *
 * <h2>Lifecycle</h2>
 *
 * {@link Builder#build()} loads TLS (failure: {@link TlsConfigException} of kind {@link
 * TlsConfigException.Kind#LOAD_FAILED}) and creates the threads; {@link #start()} binds (failure:
 * {@link IOException}); {@link #close()} shuts down gracefully: it stops accepting calls, lets
 * in-flight calls finish for up to {@link GrpcServerConfig#shutdownDrainTimeout()}, then cancels
 * what is left and releases every thread. {@code close()} is idempotent and may be called without
 * {@code start()}.
 *
 * <h2>Threads and overload</h2>
 *
 * RPC handlers run on {@link GrpcServerConfig#executorThreads()} fixed daemon threads; {@link
 * AdmissionControl} owns them and the rules below. Admission is decided per call, on the Netty
 * event loop, as soon as its headers arrive. The new call is refused at once, without ever being
 * queued or reaching an interceptor or handler, when any of these holds:
 *
 * <ul>
 *   <li>{@link GrpcServerConfig#executorQueueCapacity()} or more handler tasks already wait for a
 *       thread;
 *   <li>the oldest of them has waited longer than {@link GrpcServerConfig#maxQueueDelay()};
 *   <li>the wait expected for the new call (the tasks ahead of it times the pace at which the pool
 *       has been working through a backlog, see {@link AgedTaskQueue}) exceeds {@code
 *       maxQueueDelay} — the head's age alone lets a queue admit {@code maxQueueDelay} worth of
 *       arrivals, which at a k-fold overload take k × {@code maxQueueDelay} to serve;
 *   <li>or exceeds the time left before the call's own deadline (it would time out in the queue).
 * </ul>
 *
 * A call admitted all the same whose first task then waits longer than {@code maxQueueDelay} (the
 * pool slowed down after admission: a starved CPU, a stall) is refused by the handler thread that
 * reaches it, before any interceptor or handler runs, instead of being served late. A refused call
 * gets {@code RESOURCE_EXHAUSTED} ("server overloaded"), or the answer of a {@link ShedResponder}
 * (LookupRoute: {@code NO_HINT} with status OK), and {@link #rejectedCalls()} counts it. Calls
 * already started are never refused: their later callbacks (messages, half-close, cancellation)
 * always queue, so overload sheds new work instead of breaking work in progress. The queue is
 * therefore a linked queue without a hard bound, yet bounded in practice: gRPC runs each call's
 * callbacks one at a time, so a call holds at most one queued task, and new calls stop being
 * admitted once {@code executorQueueCapacity} tasks wait.
 *
 * <p>Method lookup, the admission decision and, for cancelled calls, the cancellation of the call's
 * {@link io.grpc.Context} run inline on the event loop; all are cheap and never block.
 *
 * <h2>Connections</h2>
 *
 * A new connection must finish its TLS and HTTP/2 handshake within {@link
 * GrpcServerConfig#handshakeTimeout()} or it is closed; one without calls for {@link
 * GrpcServerConfig#maxConnectionIdle()} gets GOAWAY; while {@link
 * GrpcServerConfig#maxConnections()} are open, newly accepted ones are closed before any work is
 * done for them ({@link #refusedConnections()}). Together they bound the file descriptors that
 * silent or idle clients can hold.
 *
 * <p>Thread-safe: every method may be called from any thread.
 */
public final class GrpcServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcServer.class);

  /** After {@code shutdownNow()}, how long to wait for cancelled calls and threads to finish. */
  private static final Duration ABORT_GRACE = Duration.ofSeconds(2);

  /** Names of the services {@link GrpcServer} registers itself. */
  private static final Set<String> BUILT_IN_SERVICES =
      Set.of(
          "grpc.health.v1.Health",
          "grpc.reflection.v1.ServerReflection",
          "grpc.reflection.v1alpha.ServerReflection");

  private final GrpcServerConfig config;
  private final Server server;
  private final AdmissionControl admission;
  private final ThreadPoolExecutor executor;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final String transport;
  private final ReloadingKeyManager keyManager;
  private final HealthStatusManager health;
  private final ConnectionLimit connections;
  private final Object lifecycle = new Object();

  private boolean started; // guarded by lifecycle
  private boolean closed; // guarded by lifecycle

  private GrpcServer(final Builder b) {
    this.config = b.config;
    final SocketAddress address = socketAddress(config.bindAddress());

    // TLS first: a load failure must not leave threads behind.
    final SslContext sslContext;
    if (config.tlsEnabled()) {
      keyManager =
          ReloadingKeyManager.load(Path.of(config.tlsCertFile()), Path.of(config.tlsKeyFile()));
      sslContext = serverSslContext(keyManager);
    } else {
      keyManager = null;
      sslContext = null;
    }

    this.health = new HealthStatusManager();
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);

    final boolean epoll = Epoll.isAvailable();
    final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    this.connections = new ConnectionLimit(config.maxConnections());
    final ChannelFactory<ServerChannel> channelFactory =
        () -> {
          final ServerChannel channel =
              epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
          // First in the listening channel's pipeline: sees each accepted child before the
          // acceptor.
          channel.pipeline().addLast(connections);
          return channel;
        };
    this.transport = epoll ? "epoll" : "nio";
    this.bossGroup =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("inferencecache-grpc-boss", true), io);
    this.workerGroup =
        new MultiThreadIoEventLoopGroup(
            config.eventLoopThreads(),
            new DefaultThreadFactory("inferencecache-grpc-io", true),
            io);
    this.admission =
        new AdmissionControl(
            config.executorThreads(),
            config.executorQueueCapacity(),
            config.maxQueueDelay(),
            b.shedResponders);
    this.executor = admission.executor();
    try {
      this.server = nettyServer(b, address, channelFactory, sslContext);
    } catch (RuntimeException e) {
      executor.shutdownNow();
      bossGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      workerGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  private Server nettyServer(
      final Builder b,
      final SocketAddress address,
      final ChannelFactory<ServerChannel> channelFactory,
      final SslContext sslContext) {
    final NettyServerBuilder nb =
        NettyServerBuilder.forAddress(address)
            .channelFactory(channelFactory)
            .bossEventLoopGroup(bossGroup)
            .workerEventLoopGroup(workerGroup)
            .directExecutor() // only method lookup and admission; see the class comment
            .callExecutor(admission.callExecutor())
            .maxInboundMessageSize(config.maxInboundMessageSize())
            .maxInboundMetadataSize(config.maxInboundMetadataSize())
            .keepAliveTime(AdmissionControl.nanos(config.keepAliveTime()), TimeUnit.NANOSECONDS)
            .keepAliveTimeout(
                AdmissionControl.nanos(config.keepAliveTimeout()), TimeUnit.NANOSECONDS)
            .permitKeepAliveTime(
                AdmissionControl.nanos(config.permitKeepAliveTime()), TimeUnit.NANOSECONDS)
            .permitKeepAliveWithoutCalls(config.permitKeepAliveWithoutCalls())
            .maxConcurrentCallsPerConnection(config.maxConcurrentCallsPerConnection())
            .handshakeTimeout(
                AdmissionControl.nanos(config.handshakeTimeout()), TimeUnit.NANOSECONDS);
    if (!config.maxConnectionIdle().isZero()) {
      nb.maxConnectionIdle(
          AdmissionControl.nanos(config.maxConnectionIdle()), TimeUnit.NANOSECONDS);
    }
    if (sslContext != null) {
      nb.sslContext(sslContext);
    }
    nb.addService(health.getHealthService());
    nb.addService(ProtoReflectionServiceV1.newInstance());
    nb.addService(reflectionV1Alpha());
    for (final ServerServiceDefinition service : b.services) {
      nb.addService(service);
    }
    for (final ServerInterceptor interceptor : b.interceptors) {
      nb.intercept(interceptor);
    }
    // Added last so that it runs first, before any caller interceptor sees a refused call.
    nb.intercept(admission.interceptor());
    return nb.build();
  }

  /**
   * A builder for a server with {@code config}.
   *
   * @param config validated settings
   */
  public static Builder builder(final GrpcServerConfig config) {
    return new Builder(config);
  }

  /**
   * Binds and starts serving.
   *
   * @throws IOException when the address cannot be bound (the application maps this to exit 1)
   * @throws IllegalStateException when already started or closed
   */
  public GrpcServer start() throws IOException {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      if (started) {
        throw new IllegalStateException("already started");
      }
      server.start();
      started = true;
    }
    LOG.info(
        "grpc_server_started address={} port={} transport={} tls={} executorThreads={}"
            + " executorQueueCapacity={}",
        config.bindAddress(),
        server.getPort(),
        transport,
        tlsEnabled(),
        config.executorThreads(),
        config.executorQueueCapacity());
    return this;
  }

  /**
   * The port actually bound (useful with port 0).
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public int port() {
    synchronized (lifecycle) {
      if (!started) {
        throw new IllegalStateException("not started");
      }
    }
    return server.getPort();
  }

  /** True between a successful {@link #start()} and {@link #close()}. */
  public boolean isServing() {
    synchronized (lifecycle) {
      return started && !closed && !server.isShutdown();
    }
  }

  /** True when the listener serves TLS (both files configured). */
  public boolean tlsEnabled() {
    return keyManager != null;
  }

  /** {@code "epoll"} (Netty native transport) or {@code "nio"}. */
  public String transport() {
    return transport;
  }

  /** The settings this server was built with. */
  public GrpcServerConfig config() {
    return config;
  }

  /**
   * Calls shed under overload: refused at admission (queue full, too slow for {@link
   * GrpcServerConfig#maxQueueDelay()}, or slower than the call's own deadline), or reached by a
   * handler thread only after waiting longer than {@code maxQueueDelay} (see the class comment).
   */
  public long rejectedCalls() {
    return admission.rejectedCalls();
  }

  /**
   * Tasks waiting for a handler thread: each waiting call holds at most one (for tests; not a
   * metric).
   */
  int queuedTasks() {
    return admission.queuedTasks();
  }

  /**
   * How long the most recently queued task waiting for a handler thread has waited, in nanoseconds;
   * 0 when none waits (for tests: once all expected calls are queued, each has waited at least this
   * long).
   */
  long newestQueuedTaskWaitNanos() {
    return admission.newestQueuedTaskWaitNanos();
  }

  /** Connections accepted and not yet closed. */
  public int openConnections() {
    return connections.open();
  }

  /** Connections closed at accept because {@link GrpcServerConfig#maxConnections()} were open. */
  public long refusedConnections() {
    return connections.refused();
  }

  /**
   * The certificate currently served, or null without TLS. Reflects reloads as they happen (checked
   * on handshakes).
   */
  public X509Certificate tlsCertificate() {
    return keyManager == null ? null : keyManager.currentCertificate();
  }

  /** Blocks until the server has terminated (after {@link #close()} from another thread). */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Graceful shutdown: refuses new calls, waits up to the drain timeout for in-flight calls, then
   * cancels the rest and releases the event loops and the executor. Idempotent; never throws. If
   * the calling thread is interrupted the remaining steps run without waiting and the interrupt
   * flag is kept.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    LOG.info("graceful_shutdown_started drainTimeout={}", config.shutdownDrainTimeout());
    boolean interrupted = false;
    server.shutdown();
    try {
      if (!server.awaitTermination(
          AdmissionControl.nanos(config.shutdownDrainTimeout()), TimeUnit.NANOSECONDS)) {
        LOG.warn(
            "grpc drain timeout {} elapsed with calls in flight; cancelling them",
            config.shutdownDrainTimeout());
        server.shutdownNow();
        server.awaitTermination(ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      interrupted = true;
      server.shutdownNow();
    }
    // Handlers next (interrupting any still running once the grace is over), event loops last so
    // that late writes from handlers find them alive.
    executor.shutdown();
    if (!interrupted) {
      try {
        if (!executor.awaitTermination(ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
          executor.shutdownNow();
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      executor.shutdownNow();
    }
    final Future<?> bossDone =
        bossGroup.shutdownGracefully(0, ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    final Future<?> workerDone =
        workerGroup.shutdownGracefully(0, ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    if (!interrupted) {
      try {
        bossDone.await(ABORT_GRACE.toMillis() * 2);
        workerDone.await(ABORT_GRACE.toMillis() * 2);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    LOG.info("graceful_shutdown_done");
  }

  private static SocketAddress socketAddress(final BindAddress address) {
    return address.wildcard()
        ? new InetSocketAddress(address.port())
        : new InetSocketAddress(address.host(), address.port());
  }

  private static SslContext serverSslContext(final ReloadingKeyManager keyManager) {
    try {
      return GrpcSslContexts.configure(SslContextBuilder.forServer(keyManager))
          .protocols("TLSv1.3", "TLSv1.2")
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new TlsConfigException(
          TlsConfigException.Kind.LOAD_FAILED, "build TLS context: " + e.getMessage(), e);
    }
  }

  @SuppressWarnings("deprecation") // v1alpha is deprecated upstream but still asked for by clients
  private static BindableService reflectionV1Alpha() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  /**
   * Collects the services and interceptors of a {@link GrpcServer}. Not thread-safe; {@link
   * #build()} may be called once.
   */
  public static final class Builder {
    private final GrpcServerConfig config;
    private final List<ServerServiceDefinition> services = new ArrayList<>();
    private final List<ServerInterceptor> interceptors = new ArrayList<>();
    private final List<ShedResponder> shedResponders = new ArrayList<>();
    private final Set<String> serviceNames = new HashSet<>(BUILT_IN_SERVICES);

    private Builder(final GrpcServerConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Registers a service.
     *
     * @throws IllegalArgumentException when a service of that name is already registered (health
     *     and reflection are built in)
     */
    public Builder addService(final BindableService service) {
      return addService(Objects.requireNonNull(service, "service").bindService());
    }

    /**
     * Registers a service definition (e.g. one already wrapped with its own interceptors).
     *
     * @throws IllegalArgumentException when a service of that name is already registered
     */
    public Builder addService(final ServerServiceDefinition service) {
      Objects.requireNonNull(service, "service");
      final String name = service.getServiceDescriptor().getName();
      if (!serviceNames.add(name)) {
        throw new IllegalArgumentException("service already registered: " + name);
      }
      services.add(service);
      return this;
    }

    /**
     * Adds an interceptor applied to every call, the built-in services included. As in gRPC, the
     * interceptor added last runs first.
     */
    public Builder intercept(final ServerInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * Adds a responder for calls shed under overload (see {@link ShedResponder}); calls no
     * responder answers are refused with {@code RESOURCE_EXHAUSTED}.
     */
    public Builder onShed(final ShedResponder responder) {
      shedResponders.add(Objects.requireNonNull(responder, "responder"));
      return this;
    }

    /**
     * Loads TLS (if configured), creates the event loops and the executor; does not bind.
     *
     * @throws TlsConfigException of kind {@link TlsConfigException.Kind#LOAD_FAILED} when the
     *     configured pair cannot be loaded
     */
    public GrpcServer build() {
      return new GrpcServer(this);
    }
  }
}
