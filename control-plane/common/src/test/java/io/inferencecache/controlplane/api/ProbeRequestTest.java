package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeRequestTest {
  private static ProbeRequest decode(final String json) throws Exception {
    final byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return ProbeRequest.decode(b, b.length);
  }

  @Test
  void decodesCaseInsensitiveKeys() throws Exception {
    assertThat(
            decode(
                "{\"Backend\":\"b\",\"MODEL\":\"m\",\"hashscheme\":\"s\",\"backendType\":\"LMCache\"}\n"))
        .isEqualTo(new ProbeRequest("b", "m", "s", "LMCache"));
  }

  @Test
  void unknownFieldIsADecodeError() {
    assertThatThrownBy(() -> decode("{\"backend\":\"b\",\"extra\":1}"))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessage("json: unknown field \"extra\"");
  }

  @Test
  void trailingContentIsItsOwnError() {
    assertThatThrownBy(() -> decode("{\"backend\":\"b\"} {}"))
        .isInstanceOf(ProbeRequest.TrailingContentException.class)
        .hasMessage(ProbeRequest.TRAILING_CONTENT);
  }

  @Test
  void missingFieldsAreDetectedAfterDecoding() throws Exception {
    assertThat(decode("{\"backend\":\"b\",\"model\":\"m\"}").complete()).isFalse();
    assertThat(decode("{\"backend\":\"b\",\"model\":\"m\",\"hashScheme\":\"s\"}").complete())
        .isTrue();
  }

  @Test
  void resultJsonOmitsEmptyErrorsAndKeepsStageOrder() {
    assertThat(new ProbeResult("b", "ok", "ok", "skipped", List.of()).toJson())
        .isEqualTo("{\"backend\":\"b\",\"ingest\":\"ok\",\"routing\":\"ok\",\"t2\":\"skipped\"}\n");
    assertThat(
            new ProbeResult(
                    "b",
                    "ok",
                    "failed",
                    "skipped",
                    List.of(new ProbeResult.StageError("routing", "LookupRoute returned NO_HINT")))
                .toJson())
        .isEqualTo(
            "{\"backend\":\"b\",\"ingest\":\"ok\",\"routing\":\"failed\",\"t2\":\"skipped\","
                + "\"errors\":[{\"stage\":\"routing\",\"message\":\"LookupRoute returned NO_HINT\"}]}\n");
  }

  @Test
  void allPassedFailsClosedOnZeroValue() {
    assertThat(new ProbeResult("b", null, null, null, null).allPassed()).isFalse();
    assertThat(new ProbeResult("b", "ok", "ok", "skipped", null).allPassed()).isTrue();
    assertThat(new ProbeResult("b", "ok", "failed", "skipped", null).allPassed()).isFalse();
  }
}
