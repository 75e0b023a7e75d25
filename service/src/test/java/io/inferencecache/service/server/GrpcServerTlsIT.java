package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.service.tls.TestCerts;
import io.inferencecache.service.tls.TestCerts.KeyFormat;
import io.inferencecache.service.tls.TestCerts.Pair;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Server TLS on 127.0.0.1 with self-signed certificates generated per test. */
@Timeout(60)
class GrpcServerTlsIT {
  @TempDir Path dir;

  private Path certFile;
  private Path keyFile;
  private Instant mtime;
  private Pair first;
  private Pair second;
  private GrpcServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void startServerWithFirstPair() throws IOException {
    certFile = dir.resolve("tls.crt");
    keyFile = dir.resolve("tls.key");
    first = TestCerts.selfSigned("first");
    second = TestCerts.selfSigned("second");
    mtime = Instant.now().minusSeconds(600);
    first.write(certFile, keyFile, KeyFormat.PKCS8, mtime);
    server =
        GrpcServer.builder(
                GrpcServerConfig.builder()
                    .bindAddress("127.0.0.1:0")
                    .executorThreads(2)
                    .eventLoopThreads(1)
                    .tlsCertFile(certFile.toString())
                    .tlsKeyFile(keyFile.toString())
                    .build())
            .addService(new TestInferenceCache())
            .build()
            .start();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (final ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }

  /** Records the TLS session of the connection each call ran on. */
  private static final class SessionCapture implements ClientInterceptor {
    final AtomicReference<SSLSession> session = new AtomicReference<>();

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        final MethodDescriptor<Q, R> method, final CallOptions options, final Channel next) {
      return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(final Listener<R> listener, final Metadata headers) {
          final ClientCall<Q, R> call = this;
          super.start(
              new SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onHeaders(final Metadata responseHeaders) {
                  session.set(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
                  super.onHeaders(responseHeaders);
                }
              },
              headers);
        }
      };
    }
  }

  private static SslContext trusting(final X509Certificate... certs) throws SSLException {
    return GrpcSslContexts.forClient().trustManager(certs).build();
  }

  private ManagedChannel tlsChannel(final SslContext ssl, final SessionCapture capture) {
    final ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port())
            .sslContext(ssl)
            .intercept(capture)
            .build();
    channels.add(channel);
    return channel;
  }

  private static ServingStatus health(final ManagedChannel channel) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  /** Opens a new connection trusting both pairs and returns the certificate the server sent. */
  private X509Certificate servedOnANewConnection() throws Exception {
    final SessionCapture capture = new SessionCapture();
    final ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port())
            .sslContext(trusting(first.cert(), second.cert()))
            .intercept(capture)
            .build();
    try {
      assertThat(health(channel)).isEqualTo(ServingStatus.SERVING);
      return (X509Certificate) capture.session.get().getPeerCertificates()[0];
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void clientTrustingTheCertificateCompletesTheHandshakeAndCalls() throws Exception {
    final SessionCapture capture = new SessionCapture();
    final ManagedChannel channel = tlsChannel(trusting(first.cert()), capture);

    assertThat(health(channel)).isEqualTo(ServingStatus.SERVING);
    assertThat(
            InferenceCacheGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .lookupRoute(LookupRouteRequest.newBuilder().setTenantId("t").build())
                .getReasonCode())
        .isEqualTo("NO_HINT");
    assertThat(server.tlsEnabled()).isTrue();
    assertThat(capture.session.get().getPeerCertificates()[0]).isEqualTo(first.cert());
    assertThat(capture.session.get().getProtocol()).isEqualTo("TLSv1.3");
  }

  @Test
  void tls12ClientIsAccepted() throws Exception {
    final SessionCapture capture = new SessionCapture();
    final SslContext tls12 =
        GrpcSslContexts.forClient().trustManager(first.cert()).protocols("TLSv1.2").build();

    assertThat(health(tlsChannel(tls12, capture))).isEqualTo(ServingStatus.SERVING);
    assertThat(capture.session.get().getProtocol()).isEqualTo("TLSv1.2");
  }

  @Test
  void plaintextClientIsRefusedByTheTlsPort() {
    final ManagedChannel plaintext =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    channels.add(plaintext);

    final StatusRuntimeException e =
        catchThrowableOfType(StatusRuntimeException.class, () -> health(plaintext));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void clientNotTrustingTheCertificateFailsTheHandshake() throws Exception {
    final ManagedChannel channel = tlsChannel(trusting(second.cert()), new SessionCapture());

    final StatusRuntimeException e =
        catchThrowableOfType(StatusRuntimeException.class, () -> health(channel));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void rotatedPairIsServedToNewConnectionsWithoutRestart() throws Exception {
    final SessionCapture early = new SessionCapture();
    final ManagedChannel established = tlsChannel(trusting(first.cert(), second.cert()), early);
    assertThat(health(established)).isEqualTo(ServingStatus.SERVING);
    assertThat(early.session.get().getPeerCertificates()[0]).isEqualTo(first.cert());

    second.write(certFile, keyFile, KeyFormat.PKCS1, mtime.plusSeconds(10));

    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> servedOnANewConnection().equals(second.cert()));
    assertThat(server.tlsCertificate()).isEqualTo(second.cert());
    // The connection made before the rotation keeps working.
    assertThat(health(established)).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void halfWrittenRotationKeepsTheLastGoodPairUntilTheKeyArrives() throws Exception {
    second.writeCert(certFile, mtime.plusSeconds(10));

    // Longer than the once-a-second check: reloads are attempted and fail (key mismatch).
    await()
        .during(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> servedOnANewConnection().equals(first.cert()));

    second.writeKey(keyFile, KeyFormat.PKCS8);

    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> servedOnANewConnection().equals(second.cert()));
  }

  @Test
  void unreadableCertificateKeepsTheLastGoodPair() throws Exception {
    Files.writeString(
        certFile, "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n");
    Files.setLastModifiedTime(certFile, FileTime.from(mtime.plusSeconds(10)));

    await()
        .during(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> servedOnANewConnection().equals(first.cert()));

    second.write(certFile, keyFile, KeyFormat.PKCS8, mtime.plusSeconds(20));
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> servedOnANewConnection().equals(second.cert()));
  }
}
