package io.inferencecache.controlplane.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClientConnectionTest {
  @Test
  void anAddressNeedsAHostAndAValidPort() {
    assertThatCode(() -> ClientConnection.checkAddress("127.0.0.1:9090"))
        .doesNotThrowAnyException();
    assertThatCode(() -> ClientConnection.checkAddress("[::1]:9090")).doesNotThrowAnyException();
    assertThatCode(() -> ClientConnection.checkAddress("inference-cache:9090"))
        .doesNotThrowAnyException();
    for (final String bad : new String[] {"127.0.0.1", ":9090", "host:", "host:0", "host:65536"}) {
      assertThatThrownBy(() -> ClientConnection.checkAddress(bad))
          .hasMessage("--address \"" + bad + "\": want HOST:PORT, e.g. 127.0.0.1:9090");
    }
  }

  @Test
  void durationsAreWrittenInTheLargestExactUnit() {
    assertThat(ClientConnection.format(Duration.ofSeconds(10))).isEqualTo("10s");
    assertThat(ClientConnection.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(ClientConnection.format(Duration.ofNanos(1_500_000))).isEqualTo("1500us");
  }

  @Test
  void aTransportErrorIsOneLineWithoutNettysPipelineOrHexDump() {
    final Status s =
        Status.UNAVAILABLE
            .withDescription("io exception")
            .withCause(
                new IOException(
                    "io exception\nChannel Pipeline: [SslHandler#0, Tail#0]: not an SSL/TLS record:"
                        + " 000012040000000000000300000400000400100000000600002000"));
    assertThat(ClientConnection.detail(s))
        .isEqualTo("io exception not an SSL/TLS record: 0000120400000000...");
    assertThat(ClientConnection.detail(Status.UNAVAILABLE.withDescription("gone")))
        .isEqualTo("gone");
  }
}
