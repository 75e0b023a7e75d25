package io.inferencecache.subscriber.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SubscriberConfigTest {
  private static SubscriberConfig.Builder valid() {
    return SubscriberConfig.builder().replicaId("r").modelId("m");
  }

  @Test
  void defaultsMatchTheUpstreamFlags() {
    final SubscriberConfig c = valid().build();

    assertThat(c.engineEndpoint()).isEqualTo("tcp://127.0.0.1:5557");
    assertThat(c.topic()).isEqualTo("kv-events");
    assertThat(c.server()).isEqualTo("127.0.0.1:9090");
    assertThat(c.serverBufferUpdates()).isEqualTo(1024);
    assertThat(c.serverBufferEntries()).isEqualTo(65_536);
    assertThat(c.tenantId()).isEmpty();
    assertThat(c.hashScheme()).isEqualTo("vllm");
    assertThat(c.window()).isEqualTo(Duration.ofMillis(100));
    assertThat(c.engineMetricsUrl()).isEqualTo("http://127.0.0.1:8000/metrics");
    assertThat(c.statsInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.engineCacheSizeBytes()).isZero();
    assertThat(c.maxConcurrencyCeiling()).isEqualTo(256);
    assertThat(c.cacheTier()).isEqualTo(CacheTier.AUTO);
    assertThat(c.engineModelName()).isEmpty();
    assertThat(c.ignoreBlockRemoved()).isFalse();
    assertThat(c.loraAdapterNames()).isEmpty();
    assertThat(c.statsEnabled()).isTrue();
  }

  @Test
  void acceptsEveryFlag() {
    final SubscriberConfig c =
        valid()
            .engineEndpoint("ipc:///tmp/kv")
            .topic("")
            .server("dns:///ic:9090")
            .tenantId("t")
            .hashScheme("sglang")
            .window("250ms")
            .engineMetricsUrl("")
            .statsInterval("30s")
            .engineCacheSizeBytes(1L << 34)
            .maxConcurrencyCeiling(0)
            .cacheTier("gpu")
            .engineModelName("Qwen/Qwen2.5")
            .ignoreBlockRemoved(true)
            .loraAdapterNames(" 1 = sql-lora , 2=chat-lora,")
            .build();

    assertThat(c.window()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.statsInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.cacheTier()).isEqualTo(CacheTier.GPU);
    assertThat(c.statsEnabled()).isFalse();
    assertThat(c.loraAdapterNames())
        .containsExactly(Map.entry(1L, "sql-lora"), Map.entry(2L, "chat-lora"));
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(() -> SubscriberConfig.builder().hashScheme("").build())
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("--replica-id: required")
        .hasMessageContaining("--model-id: required")
        .hasMessageContaining("--hash-scheme: required");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "cache tier | --cache-tier: invalid value \"GPU\"",
        "window | --window: must be positive",
        "stats interval | --stats-interval: must be positive",
        "cache size | --engine-cache-size-bytes: must be >= 0",
        "metrics url | --engine-metrics-url: want an absolute http(s) URL",
        "endpoint | --engine-endpoint: want tcp://host:port",
        "server | --server: required",
        "adapters | --lora-adapter-names: lora id 1 mapped more than once",
        "window syntax | --window: missing unit",
        "buffer updates | --server-buffer-updates: must be positive",
        "buffer entries | --server-buffer-entries: must be positive"
      })
  void rejectsInvalidValues(final String field, final String message) {
    final SubscriberConfig.Builder b = valid();
    assertThatThrownBy(
            () -> {
              switch (field) {
                case "cache tier":
                  b.cacheTier("GPU");
                  break;
                case "window":
                  b.window(Duration.ZERO);
                  break;
                case "stats interval":
                  b.statsInterval(Duration.ofSeconds(-1));
                  break;
                case "cache size":
                  b.engineCacheSizeBytes(-1);
                  break;
                case "metrics url":
                  b.engineMetricsUrl("ftp://x/metrics");
                  break;
                case "endpoint":
                  b.engineEndpoint("127.0.0.1:5557");
                  break;
                case "server":
                  b.server(" ");
                  break;
                case "buffer updates":
                  b.serverBufferUpdates(0);
                  break;
                case "buffer entries":
                  b.serverBufferEntries(-1);
                  break;
                case "adapters":
                  b.loraAdapterNames("1=a,1=b");
                  break;
                default:
                  b.window("100");
              }
              b.build();
            })
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void parsesAdapterNamesStrictly() {
    assertThat(LoraAdapterNames.parse("")).isEmpty();
    assertThat(LoraAdapterNames.parse(" , ,")).isEmpty();
    assertThat(LoraAdapterNames.parse("-3=neg")).containsEntry(-3L, "neg");
    assertThatThrownBy(() -> LoraAdapterNames.parse("1"))
        .hasMessageContaining("\"1\" is not id=name");
    assertThatThrownBy(() -> LoraAdapterNames.parse("x=a"))
        .hasMessageContaining("non-integer lora id");
    assertThatThrownBy(() -> LoraAdapterNames.parse("1= "))
        .hasMessageContaining("empty adapter name");
    assertThatThrownBy(() -> LoraAdapterNames.parse("99999999999999999999=a"))
        .hasMessageContaining("non-integer lora id");
  }

  @Test
  void cacheTierFlagsRoundTrip() {
    for (final CacheTier t : CacheTier.values()) {
      assertThat(CacheTier.fromFlag(t.flag())).isEqualTo(t);
    }
    assertThat(CacheTier.validNames()).isEqualTo("auto, kv, gpu, cpu");
  }
}
