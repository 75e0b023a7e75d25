package io.inferencecache.controlplane.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.util.JsonFormat;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import org.junit.jupiter.api.Test;

class LookupOutputTest {
  private static final LookupRouteResponse MATCH =
      LookupRouteResponse.newBuilder()
          .setReasonCode("PREFIX_MATCH")
          .addReplicaScores(
              ReplicaScore.newBuilder()
                  .setReplicaId("vllm-0")
                  .setScore(63.99998f)
                  .setMatchedTokens(128)
                  .setEstimatedCacheHitProb(0.99f)
                  .setTier(CacheTier.CACHE_TIER_T1))
          .addReplicaScores(
              ReplicaScore.newBuilder()
                  .setReplicaId("vllm-long-name-1")
                  .setScore(0f)
                  .setMatchedTokens(64)
                  .setTier(CacheTier.CACHE_TIER_T1))
          .setLookupLatencyUs(42)
          .build();

  @Test
  void tableIsTheReasonThenTheRankedReplicasInAnswerOrder() {
    assertThat(LookupOutput.TABLE.render(MATCH))
        .isEqualTo(
            "PREFIX_MATCH\n"
                + "RANK  REPLICA           MATCHED_TOKENS  SCORE\n"
                + "1     vllm-0            128             63.99998\n"
                + "2     vllm-long-name-1  64              0\n");
  }

  @Test
  void aMissIsTheReasonCodeAlone() {
    assertThat(
            LookupOutput.TABLE.render(
                LookupRouteResponse.newBuilder().setReasonCode("UNKNOWN_TENANT").build()))
        .isEqualTo("UNKNOWN_TENANT\n");
  }

  @Test
  void jsonIsTheWholeResponseWithZeroFieldsWrittenAndReadsBack() throws Exception {
    final String json = LookupOutput.JSON.render(MATCH);
    assertThat(json)
        .endsWith("}\n")
        .contains("\"reasonCode\": \"PREFIX_MATCH\"")
        .contains("\"replicaId\": \"vllm-long-name-1\"")
        .contains("\"score\": 0.0")
        .contains("\"tier\": \"CACHE_TIER_T1\"")
        .contains("\"lookupLatencyUs\": \"42\"")
        .contains("\"adapterId\": \"\"");
    final LookupRouteResponse.Builder back = LookupRouteResponse.newBuilder();
    JsonFormat.parser().merge(json, back);
    assertThat(back.build()).isEqualTo(MATCH);
  }

  @Test
  void scoresAreTheFloatsShortestDecimalWithoutExponent() {
    assertThat(LookupOutput.decimal(64f)).isEqualTo("64");
    assertThat(LookupOutput.decimal(0.5f)).isEqualTo("0.5");
    assertThat(LookupOutput.decimal(0f)).isEqualTo("0");
    assertThat(LookupOutput.decimal(1.0e-5f)).isEqualTo("0.00001");
    assertThat(LookupOutput.decimal(0.2f)).isEqualTo("0.2");
  }

  @Test
  void outputFormatIsTableOrJson() {
    assertThat(LookupOutput.parse("JSON")).isEqualTo(LookupOutput.JSON);
    assertThat(LookupOutput.parse("table")).isEqualTo(LookupOutput.TABLE);
    assertThatThrownBy(() -> LookupOutput.parse("yaml"))
        .hasMessage("-o/--output \"yaml\": want table or json");
  }
}
