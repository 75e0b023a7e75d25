package io.inferencecache.controlplane.controller.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class CrTextTest {
  @Test
  void ratesAreShortestFloat32PlainDecimals() {
    assertThat(CrText.rate(0)).isEqualTo("0");
    assertThat(CrText.rate(-0.0)).isEqualTo("0");
    assertThat(CrText.rate(1)).isEqualTo("1");
    assertThat(CrText.rate(0.5)).isEqualTo("0.5");
    assertThat(CrText.rate(0.1)).isEqualTo("0.1");
    assertThat(CrText.rate(2.0 / 3.0)).isEqualTo("0.6666667");
    assertThat(CrText.rate(1e-7)).isEqualTo("0.0000001");
    assertThat(CrText.rate(1e22)).doesNotContain("E").doesNotContain("e");
  }

  @Test
  void nonFiniteRateIsRefused() {
    assertThatThrownBy(() -> CrText.rate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void timesAreWholeSecondUtc() {
    assertThat(CrText.time(Instant.parse("2026-12-01T11:03:18.987654321Z")))
        .isEqualTo("2026-12-01T11:03:18Z");
    assertThat(CrText.time((Instant) null)).isNull();
  }

  @Test
  void timesAtAWholeMinuteKeepTheirSeconds() {
    assertThat(CrText.time(Instant.parse("2026-12-05T23:44:00Z")))
        .isEqualTo("2026-12-05T23:44:00Z");
    assertThat(CrText.time(OffsetDateTime.of(2026, 12, 6, 1, 0, 0, 500, ZoneOffset.ofHours(2))))
        .isEqualTo("2026-12-05T23:00:00Z");
    assertThat(CrText.time((OffsetDateTime) null)).isNull();
  }

  @Test
  void everyTimeOfATypedStatusIsSentAsAWholeSecondRfc3339Time() {
    final OffsetDateTime t = OffsetDateTime.parse("2026-12-05T23:44:39.123456789Z");
    final CacheBackend cr = new CacheBackend();
    cr.setMetadata(new V1ObjectMeta().namespace("ns").name("cb"));
    final CacheBackend.Status st = new CacheBackend.Status();
    st.firstAvailableAt = t;
    st.firstKVEventObservedAt = t.withOffsetSameInstant(ZoneOffset.ofHours(-5));
    st.indexParticipation = new CacheBackend.IndexParticipation();
    st.indexParticipation.lastEventAt = t.withNano(0);
    st.conditions =
        List.of(new V1Condition().type("Ready").status("True").reason("R").lastTransitionTime(t));
    cr.setStatus(st);
    // The client's own serializer writes the MicroTime form, which is why status goes through tree.
    assertThat(JSON.serialize(st.indexParticipation)).contains("2026-12-05T23:44:39.000000Z");

    final JsonObject status = CrText.tree(cr).getAsJsonObject().getAsJsonObject("status");
    assertThat(status.get("firstAvailableAt").getAsString()).isEqualTo("2026-12-05T23:44:39Z");
    assertThat(status.get("firstKVEventObservedAt").getAsString())
        .isEqualTo("2026-12-05T23:44:39Z");
    assertThat(status.getAsJsonObject("indexParticipation").get("lastEventAt").getAsString())
        .isEqualTo("2026-12-05T23:44:39Z");
    assertThat(
            status
                .getAsJsonArray("conditions")
                .get(0)
                .getAsJsonObject()
                .get("lastTransitionTime")
                .getAsString())
        .isEqualTo("2026-12-05T23:44:39Z");
    assertThat(CrText.tree(cr).getAsJsonObject().get("apiVersion").getAsString())
        .isEqualTo("inferencecache.io/v1alpha1");

    final CacheIndexResource.Status index = new CacheIndexResource.Status();
    index.lastUpdated = t;
    assertThat(CrText.tree(index).getAsJsonObject().get("lastUpdated").getAsString())
        .isEqualTo("2026-12-05T23:44:39Z");
  }
}
