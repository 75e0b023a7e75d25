package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the AdmissionReview decoder and every webhook behind it: whatever the bytes, decoding
 * either yields a request or throws {@link AdmissionReviewException} with a message (HTTP 400), and
 * a decoded request gets a verdict from each handler that encodes as an AdmissionReview answering
 * its uid. No other exception may escape (the server would answer 500).
 *
 * <p>Regression mode (CI) replays {@code AdmissionReviewFuzzTestInputs/decode/}; fuzz with {@code
 * JAZZER_FUZZ=1}.
 */
class AdmissionReviewFuzzTest {
  private static final Map<String, AdmissionHandler> HANDLERS = handlers();

  private static Map<String, AdmissionHandler> handlers() {
    final CacheBackend owner =
        io.kubernetes
            .client
            .openapi
            .JSON
            .getGson()
            .fromJson(
                "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"u\",\"generation\":1},"
                    + "\"spec\":{\"runtime\":\"VLLM\",\"integration\":{\"mode\":\"EventsOnly\"},"
                    + "\"observation\":{\"modelID\":\"m\"},"
                    + "\"engineSelector\":{\"matchLabels\":{\"inferencecache.io/cache-domain\":\"d\"}}}}",
                CacheBackend.class);
    final SubscriberSidecar sidecar = new SubscriberSidecar("img", "server:9090");
    return Map.of(
        "pod", new PodInjector(ns -> List.of(owner), sidecar),
        "cb-default", new CacheBackendDefaulter(),
        "cb", new CacheBackendValidator(ns -> List.of(owner)),
        "cpol", new CachePolicyValidator(ns -> List.of()),
        "ct", new CacheTenantValidator(ns -> List.of()),
        "pdt", new PDTopologyValidator(),
        "pt", new PromptTemplateValidator());
  }

  @FuzzTest(maxDuration = "2m")
  void decode(final byte[] bytes) {
    final AdmissionRequest request;
    try {
      request = AdmissionRequest.decode(bytes, bytes.length);
    } catch (AdmissionReviewException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    assertThat(request.uid()).isNotEmpty();
    for (final AdmissionHandler h : HANDLERS.values()) {
      final byte[] out = h.handle(request).encode(request.uid());
      assertThat(out).isNotEmpty();
    }
  }
}
