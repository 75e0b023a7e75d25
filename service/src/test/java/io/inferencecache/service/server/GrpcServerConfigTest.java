package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.inferencecache.service.tls.TlsConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class GrpcServerConfigTest {

  @Test
  void defaultsMatchUpstreamAndTheDocumentedBounds() {
    final GrpcServerConfig c = GrpcServerConfig.defaults();
    assertThat(c.bindAddress()).isEqualTo(new BindAddress("", 9090));
    assertThat(c.bindAddress().wildcard()).isTrue();
    assertThat(c.executorThreads())
        .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
    assertThat(c.executorQueueCapacity()).isEqualTo(1024);
    assertThat(c.maxInboundMessageSize()).isEqualTo(4 * 1024 * 1024);
    assertThat(c.maxInboundMetadataSize()).isEqualTo(8 * 1024);
    assertThat(c.keepAliveTime()).isEqualTo(Duration.ofHours(2));
    assertThat(c.keepAliveTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.permitKeepAliveTime()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.permitKeepAliveWithoutCalls()).isFalse();
    assertThat(c.maxConnectionIdle()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.maxConnections()).isEqualTo(10_000);
    assertThat(c.maxConcurrentCallsPerConnection()).isEqualTo(1024);
    assertThat(c.shutdownDrainTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.tlsCertFile()).isEmpty();
    assertThat(c.tlsKeyFile()).isEmpty();
    assertThat(c.tlsEnabled()).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    ":9090,       '',          9090",
    "127.0.0.1:0, 127.0.0.1,   0",
    "localhost:8443, localhost, 8443",
    "0.0.0.0:65535, 0.0.0.0,   65535",
    "[::1]:9090,  ::1,         9090",
    "[::]:1,      ::,          1",
    "my-host.example:00080, my-host.example, 80"
  })
  void parsesHostPortAndColonPortForms(final String text, final String host, final int port) {
    final BindAddress a = BindAddress.parse("--grpc-bind-address", text);
    assertThat(a.host()).isEqualTo(host);
    assertThat(a.port()).isEqualTo(port);
  }

  @Test
  void formatsAddressesBackInTheirInputForm() {
    assertThat(BindAddress.parse("x", ":9090")).hasToString(":9090");
    assertThat(BindAddress.parse("x", "127.0.0.1:0")).hasToString("127.0.0.1:0");
    assertThat(BindAddress.parse("x", "[::1]:80")).hasToString("[::1]:80");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "9090|missing port",
        "localhost|missing port",
        "localhost:|missing port",
        ":|missing port",
        ":http|port must be a number 0..65535",
        ":-1|port must be a number 0..65535",
        ":65536|port must be a number 0..65535",
        ":123456|port must be a number 0..65535",
        ":+80|port must be a number 0..65535",
        "::1:9090|too many colons",
        "[::1]|missing port",
        "[::1:9090|missing ']'",
        "[127.0.0.1]:80|brackets must enclose an IPv6 address",
        "a]:80|unexpected bracket",
        "' :9090'|whitespace",
        "':9090 '|whitespace"
      })
  void rejectsMalformedAddressesNamingTheSetting(final String text, final String why) {
    assertThatThrownBy(() -> GrpcServerConfig.builder().bindAddress(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--grpc-bind-address: invalid address \"" + text + "\": ")
        .hasMessageContaining(why);
  }

  @Test
  void rejectsAnEmptyAddress() {
    assertThatThrownBy(() -> GrpcServerConfig.builder().bindAddress(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--grpc-bind-address: invalid address \"\": empty; expected host:port or :port");
  }

  @Test
  void parserNamesWhicheverSettingItParses() {
    assertThatThrownBy(() -> BindAddress.parse("--http-bind-address", "nope"))
        .hasMessageStartingWith("--http-bind-address: ");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void tlsGivenByHalvesIsAPartialTlsErrorWithTheUpstreamMessage(final boolean certOnly) {
    final GrpcServerConfig.Builder b = GrpcServerConfig.builder();
    if (certOnly) {
      b.tlsCertFile("/etc/tls/tls.crt");
    } else {
      b.tlsKeyFile("/etc/tls/tls.key");
    }
    final TlsConfigException e = catchThrowableOfType(TlsConfigException.class, b::build);
    assertThat(e)
        .hasMessage("--tls-cert-file and --tls-key-file must both be set or both be empty");
    assertThat(e.kind()).isEqualTo(TlsConfigException.Kind.PARTIAL);
    assertThat(e.exitCode()).isEqualTo(2);
  }

  @Test
  void bothTlsFilesEnableTlsWithoutTouchingTheFiles() {
    final GrpcServerConfig c =
        GrpcServerConfig.builder()
            .tlsCertFile("/nonexistent.crt")
            .tlsKeyFile("/nonexistent.key")
            .build();
    assertThat(c.tlsEnabled()).isTrue();
  }

  @Test
  void loadFailureKindMapsToExitCodeOne() {
    assertThat(TlsConfigException.Kind.LOAD_FAILED.exitCode()).isEqualTo(1);
    assertThat(TlsConfigException.Kind.PARTIAL.exitCode()).isEqualTo(2);
  }

  @Test
  void rejectsOutOfRangeSizesAndCountsNamingTheSetting() {
    assertThatThrownBy(() -> GrpcServerConfig.builder().executorThreads(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("executorThreads: must be in 1..1024, was 0");
    assertThatThrownBy(() -> GrpcServerConfig.builder().executorThreads(1025).build())
        .hasMessageStartingWith("executorThreads: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().executorQueueCapacity(0).build())
        .hasMessageStartingWith("executorQueueCapacity: ");
    assertThatThrownBy(
            () -> GrpcServerConfig.builder().executorQueueCapacity(Integer.MAX_VALUE).build())
        .hasMessageStartingWith("executorQueueCapacity: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().eventLoopThreads(0).build())
        .hasMessageStartingWith("eventLoopThreads: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().maxInboundMessageSize(0).build())
        .hasMessageStartingWith("maxInboundMessageSize: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().maxInboundMetadataSize(-1).build())
        .hasMessageStartingWith("maxInboundMetadataSize: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().maxConcurrentCallsPerConnection(0).build())
        .hasMessageStartingWith("maxConcurrentCallsPerConnection: ");
  }

  @Test
  void rejectsNonPositiveOrNegativeDurationsNamingTheSetting() {
    assertThatThrownBy(() -> GrpcServerConfig.builder().keepAliveTime(Duration.ZERO).build())
        .hasMessage("keepAliveTime: must be positive, was PT0S");
    assertThatThrownBy(() -> GrpcServerConfig.builder().keepAliveTimeout(null).build())
        .hasMessage("keepAliveTimeout: must be positive, was null");
    assertThatThrownBy(
            () -> GrpcServerConfig.builder().permitKeepAliveTime(Duration.ofSeconds(-1)).build())
        .hasMessageStartingWith("permitKeepAliveTime: must not be negative");
    assertThatThrownBy(
            () -> GrpcServerConfig.builder().maxConnectionIdle(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("maxConnectionIdle: ");
    assertThatThrownBy(() -> GrpcServerConfig.builder().handshakeTimeout(Duration.ZERO).build())
        .hasMessage("handshakeTimeout: must be positive, was PT0S");
    assertThatThrownBy(() -> GrpcServerConfig.builder().maxConnections(-1).build())
        .hasMessage("maxConnections: must be in 0..2147483647, was -1");
    assertThatThrownBy(
            () -> GrpcServerConfig.builder().shutdownDrainTimeout(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("shutdownDrainTimeout: ");
    assertThat(
            GrpcServerConfig.builder()
                .shutdownDrainTimeout(Duration.ZERO)
                .permitKeepAliveTime(Duration.ZERO)
                .build()
                .shutdownDrainTimeout())
        .isZero();
  }

  @Test
  void builtConfigIsASnapshotUnaffectedByLaterBuilderChanges() {
    final GrpcServerConfig.Builder b = GrpcServerConfig.builder().executorThreads(3);
    final GrpcServerConfig c = b.build();
    b.executorThreads(7).bindAddress("127.0.0.1:1");
    assertThat(c.executorThreads()).isEqualTo(3);
    assertThat(c.bindAddress()).isEqualTo(new BindAddress("", 9090));
  }
}
