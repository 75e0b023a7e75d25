package io.inferencecache.perf.reliability;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2PingFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Connection abuse against a running server (started with {@code --insecure-disable-auth}),
 * loopback only, bounded: many idle connections on the gRPC and HTTP ports, an HTTP slowloris on
 * both HTTP listeners, an HTTP/2 ping flood, oversized gRPC messages and metadata, oversized HTTP
 * headers and bodies. Probes health (fresh HTTP connection, LookupRoute on a fresh channel) during
 * and after each; exits 1 if the server is not healthy afterwards or a limit is not enforced.
 *
 * <pre>
 * ConnectionAbuse --grpc H:P --http H:P --snapshot H:P [--idle 1000] [--slowloris 200] [--seconds 15]
 * </pre>
 */
public final class ConnectionAbuse {
  private ConnectionAbuse() {}

  private static String grpc;
  private static String http;
  private static String snapshot;
  private static int failures;

  /** The command line. */
  @Command(
      name = "ConnectionAbuse",
      mixinStandardHelpOptions = true,
      description = "Idle connections, slowloris, ping flood and oversized messages; then probes.")
  static final class Flags implements Callable<Integer> {
    @Option(names = "--grpc", required = true, paramLabel = "HOST:PORT")
    String grpc;

    @Option(names = "--http", required = true, paramLabel = "HOST:PORT")
    String http;

    @Option(names = "--snapshot", required = true, paramLabel = "HOST:PORT")
    String snapshot;

    @Option(names = "--idle", defaultValue = "1000", paramLabel = "N")
    int idle;

    @Option(names = "--slowloris", defaultValue = "200", paramLabel = "N")
    int slowloris;

    @Option(names = "--seconds", defaultValue = "15", paramLabel = "N")
    int seconds;

    @Override
    public Integer call() throws Exception {
      return run(this);
    }
  }

  /** Exit codes: 0 every probe passed, 1 a failure, 2 usage error. */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new Flags()).execute(args));
  }

  static int run(final Flags o) throws Exception {
    grpc = o.grpc;
    http = o.http;
    snapshot = o.snapshot;
    final int idle = o.idle;
    final int slow = o.slowloris;
    final int seconds = o.seconds;
    System.out.println(
        "| abuse | size | server's answer | worst probe during (healthz ms / LookupRoute ms) |\n"
            + "|---|---|---|---|");
    idleConnections(idle, seconds);
    slowloris(slow, seconds);
    pingFlood(4, 10_000);
    oversized();
    final double[] after = probe();
    System.out.printf(
        Locale.ROOT,
        "after: healthz %s, readyz %d, LookupRoute %s%n",
        after[0] < 0 ? "FAILED" : String.format(Locale.ROOT, "%.1f ms", after[0]),
        Load.status("http://" + http + "/readyz"),
        after[1] < 0 ? "FAILED" : String.format(Locale.ROOT, "%.1f ms", after[1]));
    if (after[0] < 0 || after[1] < 0) {
      failures++;
    }
    final Load.JvmSample jvm = Load.jvm("http://" + http + "/metrics");
    System.out.printf(
        Locale.ROOT, "server heap used after: %.0f MiB%n", jvm.heapUsedBytes() / (1 << 20));
    System.out.println(failures == 0 ? "RESULT=PASS" : "RESULT=FAIL failures=" + failures);
    return failures == 0 ? 0 : 1;
  }

  private static InetSocketAddress addr(final String hostPort) {
    final int c = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, c), Integer.parseInt(hostPort.substring(c + 1)));
  }

  /** {healthz ms, LookupRoute-on-a-fresh-channel ms}; -1 for a failure. */
  private static double[] probe() {
    final double[] r = new double[2];
    long t = System.nanoTime();
    try {
      r[0] = Load.status("http://" + http + "/healthz") == 200 ? (System.nanoTime() - t) / 1e6 : -1;
    } catch (IOException | InterruptedException e) {
      r[0] = -1;
    }
    final ManagedChannel ch = Load.channel(grpc);
    t = System.nanoTime();
    try {
      InferenceCacheGrpc.newBlockingStub(ch)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .lookupRoute(Load.lookup(1));
      r[1] = (System.nanoTime() - t) / 1e6;
    } catch (StatusRuntimeException e) {
      r[1] = -1;
    } finally {
      ch.shutdownNow();
    }
    return r;
  }

  /** Probes every second for {@code seconds}; returns the worst of each (or -1 on a failure). */
  private static double[] probeFor(final int seconds) throws InterruptedException {
    final double[] worst = new double[2];
    final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      final double[] p = probe();
      for (int i = 0; i < 2; i++) {
        worst[i] = p[i] < 0 || worst[i] < 0 ? -1 : Math.max(worst[i], p[i]);
      }
      Thread.sleep(1_000);
    }
    if (worst[0] < 0 || worst[1] < 0) {
      failures++;
    }
    return worst;
  }

  private static String fmt(final double[] w) {
    return String.format(
        Locale.ROOT,
        "%s / %s",
        w[0] < 0 ? "FAILED" : String.format(Locale.ROOT, "%.1f", w[0]),
        w[1] < 0 ? "FAILED" : String.format(Locale.ROOT, "%.1f", w[1]));
  }

  /** Whether the server closed {@code s} (read returns EOF or reset within 50 ms). */
  private static boolean closedByServer(final Socket s) {
    try {
      s.setSoTimeout(50);
      final InputStream in = s.getInputStream();
      while (true) {
        final int b = in.read();
        if (b < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static void closeAll(final List<Socket> sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  static void idleConnections(final int n, final int seconds) throws Exception {
    for (String target : new String[] {grpc, http}) {
      final List<Socket> socks = new ArrayList<>();
      int refused = 0;
      try {
        for (int i = 0; i < n; i++) {
          try {
            final Socket s = new Socket();
            s.connect(addr(target), 2_000);
            socks.add(s);
          } catch (IOException e) {
            refused++;
          }
        }
        final double[] worst = probeFor(seconds);
        int closed = 0;
        for (Socket s : socks) {
          if (closedByServer(s)) {
            closed++;
          }
        }
        System.out.printf(
            Locale.ROOT,
            "| idle TCP connections, %s port | %d held %d s | %d refused, %d closed by the server"
                + " | %s |%n",
            target.equals(grpc) ? "gRPC" : "public HTTP",
            n,
            seconds,
            refused,
            closed,
            fmt(worst));
      } finally {
        closeAll(socks);
      }
    }
  }

  static void slowloris(final int n, final int seconds) throws Exception {
    for (String target : new String[] {http, snapshot}) {
      final List<Socket> socks = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          final Socket s = new Socket();
          s.connect(addr(target), 2_000);
          s.getOutputStream()
              .write(
                  "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                      .getBytes(StandardCharsets.US_ASCII));
          socks.add(s);
        }
        final double[] worst = new double[2];
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
          for (Socket s : socks) {
            try {
              final OutputStream out = s.getOutputStream();
              out.write('a');
              out.flush();
            } catch (IOException e) {
              // closed by the server
            }
          }
          final double[] p = probe();
          for (int i = 0; i < 2; i++) {
            worst[i] = p[i] < 0 || worst[i] < 0 ? -1 : Math.max(worst[i], p[i]);
          }
          Thread.sleep(1_000);
        }
        if (worst[0] < 0 || worst[1] < 0) {
          failures++;
        }
        int closed = 0;
        for (Socket s : socks) {
          if (closedByServer(s)) {
            closed++;
          }
        }
        System.out.printf(
            Locale.ROOT,
            "| HTTP slowloris (1 header byte/s), %s listener | %d connections, %d s | %d closed by"
                + " the server | %s |%n",
            target.equals(http) ? "public" : "snapshot",
            n,
            seconds,
            closed,
            fmt(worst));
      } finally {
        closeAll(socks);
      }
    }
  }

  static void pingFlood(final int connections, final int pings) throws Exception {
    final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    final List<CompletableFuture<String>> outcomes = new ArrayList<>();
    try {
      final InetSocketAddress a = addr(grpc);
      for (int c = 0; c < connections; c++) {
        final CompletableFuture<String> outcome = new CompletableFuture<>();
        outcomes.add(outcome);
        final Channel raw =
            new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(
                    new ChannelInitializer<Channel>() {
                      @Override
                      protected void initChannel(final Channel ch) {
                        ch.pipeline()
                            .addLast(
                                Http2FrameCodecBuilder.forClient().build(),
                                new ChannelInboundHandlerAdapter() {
                                  @Override
                                  public void channelRead(
                                      final ChannelHandlerContext ctx, final Object msg) {
                                    try {
                                      if (msg instanceof Http2GoAwayFrame g) {
                                        outcome.complete(
                                            "GOAWAY "
                                                + Http2Error.valueOf(g.errorCode())
                                                + " "
                                                + g.content().toString(StandardCharsets.US_ASCII));
                                      }
                                    } finally {
                                      ReferenceCountUtil.release(msg);
                                    }
                                  }

                                  @Override
                                  public void channelInactive(final ChannelHandlerContext ctx) {
                                    outcome.complete("closed");
                                  }
                                });
                      }
                    })
                .connect(a)
                .sync()
                .channel();
        for (int i = 0; i < pings && raw.isActive() && !outcome.isDone(); i++) {
          raw.write(new DefaultHttp2PingFrame(i));
          if ((i & 63) == 63) {
            raw.flush();
          }
        }
        raw.flush();
      }
      final List<String> results = new ArrayList<>();
      for (CompletableFuture<String> o : outcomes) {
        try {
          results.add(o.get(20, TimeUnit.SECONDS));
        } catch (java.util.concurrent.TimeoutException e) {
          results.add("still open");
          failures++;
        }
      }
      final double[] p = probe();
      System.out.printf(
          Locale.ROOT,
          "| HTTP/2 PING flood, gRPC port | %d connections × up to %d pings | %s | %s |%n",
          connections,
          pings,
          results.stream().distinct().toList(),
          fmt(p));
      if (p[0] < 0 || p[1] < 0) {
        failures++;
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }
  }

  static String grpcCall(final LookupRouteRequest r, final Metadata extra) {
    final ManagedChannel ch = Load.channel(grpc);
    try {
      InferenceCacheGrpc.InferenceCacheBlockingStub stub =
          InferenceCacheGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS);
      if (extra != null) {
        stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(extra));
      }
      stub.lookupRoute(r);
      return "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    } finally {
      ch.shutdownNow();
    }
  }

  /** Raw HTTP/1.1 exchange; returns the status line (or what happened). */
  static String rawHttp(final String target, final byte[] request) {
    try (Socket s = new Socket()) {
      s.connect(addr(target), 2_000);
      s.setSoTimeout(10_000);
      try {
        s.getOutputStream().write(request);
        s.getOutputStream().flush();
      } catch (IOException e) {
        // the server may answer and close before reading it all
      }
      final byte[] buf = new byte[256];
      final int n = s.getInputStream().read(buf);
      if (n <= 0) {
        return "closed";
      }
      final String text = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
      return text.substring(0, Math.max(0, text.indexOf('\r')));
    } catch (IOException e) {
      return "connection " + e.getClass().getSimpleName();
    }
  }

  static void oversized() {
    final String bigPrompt = "x".repeat(5 << 20);
    final String msg = grpcCall(Load.lookup(1).toBuilder().setPromptText(bigPrompt).build(), null);
    row("gRPC LookupRoute message", "5 MiB (limit 4 MiB)", msg, "RESOURCE_EXHAUSTED".equals(msg));
    final Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "y".repeat(16 << 10));
    final String meta = grpcCall(Load.lookup(1), md);
    row("gRPC request metadata", "16 KiB header (limit 8 KiB)", meta, !"OK".equals(meta));
    final String header =
        rawHttp(
            http,
            ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                    + "h".repeat(64 << 10)
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    row("HTTP request header, public listener", "64 KiB", header, header.contains(" 431"));
    final String policy =
        rawHttp(
            snapshot,
            ("POST /policy HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                    + (2 << 20)
                    + "\r\nContent-Type: application/json\r\n\r\n"
                    + "{\"version\":7,\"x\":\""
                    + "p".repeat((2 << 20) - 20)
                    + "\"}")
                .getBytes(StandardCharsets.US_ASCII));
    row("POST /policy body", "2 MiB (limit 1 MiB)", policy, policy.contains(" 400"));
    final String probe =
        rawHttp(
            snapshot,
            ("POST /probe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 8192\r\n\r\n"
                    + "q".repeat(8192))
                .getBytes(StandardCharsets.US_ASCII));
    row("POST /probe body", "8 KiB (limit 4 KiB)", probe, probe.contains(" 400"));
  }

  private static void row(
      final String what, final String size, final String answer, final boolean enforced) {
    final double[] p = probe();
    if (!enforced || p[0] < 0 || p[1] < 0) {
      failures++;
    }
    System.out.printf(
        Locale.ROOT,
        "| %s | %s | %s%s | %s |%n",
        what,
        size,
        answer,
        enforced ? "" : " (LIMIT NOT ENFORCED)",
        fmt(p));
  }
}
