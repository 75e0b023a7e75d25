package io.inferencecache.controlplane.client;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * One gRPC channel to an inference-cache server for the {@code client} commands: plaintext by
 * default, or TLS trusting the JVM's CAs or a PEM file. Each call is bounded by the timeout given
 * at construction; a failed call throws {@link ClientFailure} with one line saying what went wrong.
 * Not thread-safe (one command, one thread).
 */
public final class ClientConnection implements AutoCloseable {
  private final String address;
  private final Duration timeout;
  private final ManagedChannel channel;

  private ClientConnection(final String address, final Duration timeout, final ManagedChannel ch) {
    this.address = address;
    this.timeout = timeout;
    this.channel = ch;
  }

  /**
   * A lazily connecting channel to {@code address} ({@code host:port}).
   *
   * @param tls whether to speak TLS
   * @param caFile PEM certificates to trust instead of the JVM's, or null (implies nothing about
   *     {@code tls}: the caller decides)
   * @throws IllegalArgumentException for an address without a port or an unreadable CA file
   */
  public static ClientConnection open(
      final String address, final Duration timeout, final boolean tls, final File caFile) {
    checkAddress(address);
    final NettyChannelBuilder b = NettyChannelBuilder.forTarget(address);
    if (tls) {
      try {
        final SslContextBuilder ssl = GrpcSslContexts.forClient();
        if (caFile != null) {
          ssl.trustManager(caFile);
        }
        b.sslContext(ssl.build());
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--ca-file "
                + caFile
                + ": not a readable PEM certificate file ("
                + e.getMessage()
                + ")",
            e);
      }
    } else {
      b.usePlaintext();
    }
    return new ClientConnection(address, timeout, b.build());
  }

  /** Checks that {@code address} is {@code host:port} or {@code [v6]:port} with a valid port. */
  static void checkAddress(final String address) {
    final int colon = address.lastIndexOf(':');
    final String host = colon < 0 ? "" : address.substring(0, colon);
    final String port = colon < 0 ? "" : address.substring(colon + 1);
    final boolean validPort =
        !port.isEmpty()
            && port.length() <= 5
            && port.chars().allMatch(c -> c >= '0' && c <= '9')
            && Integer.parseInt(port) > 0
            && Integer.parseInt(port) <= 65_535;
    if (host.isEmpty() || !validPort) {
      throw new IllegalArgumentException(
          "--address \"" + address + "\": want HOST:PORT, e.g. 127.0.0.1:9090");
    }
  }

  /** The address this channel dials. */
  public String address() {
    return address;
  }

  /**
   * Connects and asks the health service, so that a later call's deadline measures the call and not
   * the connection set-up. A server without the health service counts as reachable.
   */
  public void connect() {
    try {
      HealthGrpc.newBlockingStub(channel)
          .withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
          .check(HealthCheckRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
        throw failure(e, timeout, "--timeout");
      }
    }
  }

  /** One ReportCacheState stream: {@code updates}, half-close, the server's Ack. */
  public Ack report(final CacheStateUpdate... updates) {
    try {
      return report(channel, timeout, updates);
    } catch (StatusRuntimeException e) {
      throw failure(e, timeout, "--timeout");
    }
  }

  /**
   * One ReportCacheState stream on {@code channel} with a deadline of {@code deadline}: sends
   * {@code updates}, half-closes, and waits for the server's Ack (the server acknowledges a stream
   * only once it is half-closed).
   *
   * @throws StatusRuntimeException when the call fails or ends without an Ack
   */
  public static Ack report(
      final Channel channel, final Duration deadline, final CacheStateUpdate... updates) {
    final CompletableFuture<Ack> ack = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> stream =
        InferenceCacheGrpc.newStub(channel)
            .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack value) {
                    ack.complete(value);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    ack.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    ack.completeExceptionally(
                        Status.INTERNAL
                            .withDescription("the server closed the stream without an Ack")
                            .asRuntimeException());
                  }
                });
    for (final CacheStateUpdate u : updates) {
      stream.onNext(u);
    }
    stream.onCompleted();
    try {
      return ack.get(); // the call's deadline bounds the wait
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").withCause(e).asRuntimeException();
    } catch (ExecutionException e) {
      throw Status.fromThrowable(e.getCause()).asRuntimeException();
    }
  }

  /**
   * One LookupRoute with a deadline of {@code deadline}, or of the connection's timeout when null.
   */
  public LookupRouteResponse lookup(final LookupRouteRequest request, final Duration deadline) {
    final Duration d = deadline == null ? timeout : deadline;
    try {
      return InferenceCacheGrpc.newBlockingStub(channel)
          .withDeadlineAfter(d.toNanos(), TimeUnit.NANOSECONDS)
          .lookupRoute(request);
    } catch (StatusRuntimeException e) {
      throw failure(e, d, deadline == null ? "--timeout" : "--deadline");
    }
  }

  private ClientFailure failure(
      final StatusRuntimeException e, final Duration limit, final String limitFlag) {
    final Status s = e.getStatus();
    return switch (s.getCode()) {
      case UNAVAILABLE -> new ClientFailure(unreachable(detail(s)));
      case DEADLINE_EXCEEDED ->
          new ClientFailure(
              "no answer from " + address + " within " + limitFlag + " " + format(limit));
      default -> new ClientFailure(address + " answered " + s.getCode() + ": " + detail(s));
    };
  }

  /** {@code 10s}, {@code 250ms} or {@code 1500us}: the largest unit that shows it exactly. */
  static String format(final Duration d) {
    final long nanos = d.toNanos();
    if (nanos % 1_000_000_000L == 0) {
      return nanos / 1_000_000_000L + "s";
    }
    if (nanos % 1_000_000L == 0) {
      return nanos / 1_000_000L + "ms";
    }
    return nanos % 1_000L == 0 ? nanos / 1_000L + "us" : nanos + "ns";
  }

  private String unreachable(final String detail) {
    final String hint;
    if (detail.contains("not an SSL/TLS record")) {
      hint = "the server speaks plaintext: drop --tls and --ca-file";
    } else if (detail.contains("certificat")) {
      hint = "the server's certificate is not trusted: give its CA with --ca-file";
    } else {
      hint =
          "is the server running? (bin/serve --insecure-disable-auth starts one; a TLS server"
              + " needs --tls or --ca-file)";
    }
    return "cannot reach " + address + " (" + detail + "): " + hint;
  }

  /**
   * The root cause's message when there is one (it names the socket or TLS error), else the
   * status's description, on one line: Netty's pipeline listing and long hex dumps are cut.
   */
  static String detail(final Status s) {
    Throwable cause = s.getCause();
    while (cause != null && cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String text = s.getDescription() != null ? s.getDescription() : s.getCode().toString();
    if (cause != null && cause.getMessage() != null) {
      text = cause.getMessage();
    }
    return text.replaceAll("Channel Pipeline: \\[[^\\]]*\\]: ?", "")
        .replaceAll("([0-9a-fA-F]{16})[0-9a-fA-F]{8,}", "$1...")
        .replaceAll("\\s*[\\r\\n]+\\s*", " ")
        .trim();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
