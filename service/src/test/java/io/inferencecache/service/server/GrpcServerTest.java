package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.protobuf.services.HealthStatusManager;
import io.inferencecache.service.tls.TestCerts;
import io.inferencecache.service.tls.TestCerts.KeyFormat;
import io.inferencecache.service.tls.TlsConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Building and closing without binding a port. */
@Timeout(30)
class GrpcServerTest {
  @TempDir Path dir;

  private static GrpcServerConfig.Builder loopback() {
    return GrpcServerConfig.builder().bindAddress("127.0.0.1:0").executorThreads(2);
  }

  @Test
  void unreadableTlsPairFailsTheBuildAsLoadFailed() throws Exception {
    final Path cert = dir.resolve("tls.crt");
    final Path key = dir.resolve("tls.key");
    TestCerts.selfSigned("a").writeCert(cert, Instant.now());
    Files.writeString(key, "not a key");
    final GrpcServerConfig config =
        loopback().tlsCertFile(cert.toString()).tlsKeyFile(key.toString()).build();

    final TlsConfigException e =
        catchThrowableOfType(TlsConfigException.class, () -> GrpcServer.builder(config).build());

    assertThat(e.kind()).isEqualTo(TlsConfigException.Kind.LOAD_FAILED);
    assertThat(e.exitCode()).isEqualTo(1);
  }

  @Test
  void tlsIsEnabledExactlyWhenBothFilesAreConfigured() throws Exception {
    final Path cert = dir.resolve("tls.crt");
    final Path key = dir.resolve("tls.key");
    final TestCerts.Pair pair = TestCerts.selfSigned("localhost");
    pair.write(cert, key, KeyFormat.PKCS8, Instant.now());

    try (GrpcServer tls =
            GrpcServer.builder(
                    loopback().tlsCertFile(cert.toString()).tlsKeyFile(key.toString()).build())
                .build();
        GrpcServer plain = GrpcServer.builder(loopback().build()).build()) {
      assertThat(tls.tlsEnabled()).isTrue();
      assertThat(tls.tlsCertificate()).isEqualTo(pair.cert());
      assertThat(plain.tlsEnabled()).isFalse();
      assertThat(plain.tlsCertificate()).isNull();
    }
  }

  @Test
  void aServiceNameCanBeRegisteredOnlyOnce() {
    final GrpcServer.Builder b =
        GrpcServer.builder(loopback().build()).addService(new TestInferenceCache());
    assertThatThrownBy(() -> b.addService(new TestInferenceCache()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("service already registered: inferencecache.v1alpha1.InferenceCache");
    assertThatThrownBy(() -> b.addService(new HealthStatusManager().getHealthService()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("service already registered: grpc.health.v1.Health");
  }

  @Test
  void closeWithoutStartReleasesEverythingAndIsIdempotent() {
    final GrpcServer server = GrpcServer.builder(loopback().build()).build();
    assertThat(server.isServing()).isFalse();
    assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
    server.close();
    server.close();
    assertThat(server.isServing()).isFalse();
    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("closed");
  }
}
