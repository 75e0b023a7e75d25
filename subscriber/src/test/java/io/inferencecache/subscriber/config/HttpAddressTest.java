package io.inferencecache.subscriber.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpAddressTest {
  @Test
  void acceptsTheServersAddressForms() {
    assertThat(HttpAddress.parse("--http-address", ":9105")).isEqualTo(new HttpAddress("", 9105));
    assertThat(HttpAddress.parse("--http-address", "127.0.0.1:0"))
        .isEqualTo(new HttpAddress("127.0.0.1", 0));
    assertThat(HttpAddress.parse("--http-address", "localhost:8080"))
        .isEqualTo(new HttpAddress("localhost", 8080));
    assertThat(HttpAddress.parse("--http-address", "[::1]:65535"))
        .isEqualTo(new HttpAddress("::1", 65535));
    assertThat(new HttpAddress("::1", 1).toString()).isEqualTo("[::1]:1");
    assertThat(new HttpAddress("", 9105).toString()).isEqualTo(":9105");
    assertThat(new HttpAddress("", 9105).socketAddress().getAddress().isAnyLocalAddress()).isTrue();
    assertThat(new HttpAddress("127.0.0.1", 1).socketAddress().getAddress().isLoopbackAddress())
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "9105",
        ":",
        "host",
        "host:",
        ":65536",
        ":+80",
        ":-1",
        " :80",
        ":80 ",
        "::1:80",
        "h:80/metrics",
        "h:80?x",
        "user@h:80",
        "[::1",
        "http://h:80",
        "h:0x50"
      })
  void refusesAnythingElseNamingTheFlagAndTheValue(final String text) {
    assertThatThrownBy(() -> HttpAddress.parse("--http-address", text))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageStartingWith("--http-address: want host:port, :port or [ipv6]:port, got \"")
        .hasMessageContaining("\"" + text + "\"");
  }

  @Test
  void theBuilderLeavesTheEndpointOffAndValidatesTheFlagWithTheOthers() {
    final SubscriberConfig.Builder b = SubscriberConfig.builder().replicaId("r").modelId("m");
    assertThat(b.build().httpAddress()).isNull();
    assertThat(b.httpAddress(SubscriberConfig.HTTP_ADDRESS_DEFAULT).build().httpAddress())
        .isEqualTo(new HttpAddress("", 9105));
    assertThatThrownBy(() -> b.httpAddress("9105").window("0s").build())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("--http-address: want host:port")
        .hasMessageContaining("--window");
  }
}
