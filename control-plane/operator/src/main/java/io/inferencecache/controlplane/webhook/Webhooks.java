package io.inferencecache.controlplane.webhook;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The webhook paths (as the shipped Mutating/ValidatingWebhookConfigurations name them) and their
 * handlers over one API client (live reads, no cache).
 */
public final class Webhooks {
  public static final String POD = "/mutate--v1-pod";
  public static final String MUTATE_CACHE_BACKEND =
      "/mutate-inferencecache-io-v1alpha1-cachebackend";
  public static final String MUTATE_CACHE_POLICY = "/mutate-inferencecache-io-v1alpha1-cachepolicy";
  public static final String MUTATE_CACHE_TENANT = "/mutate-inferencecache-io-v1alpha1-cachetenant";
  public static final String VALIDATE_CACHE_BACKEND =
      "/validate-inferencecache-io-v1alpha1-cachebackend";
  public static final String VALIDATE_CACHE_POLICY =
      "/validate-inferencecache-io-v1alpha1-cachepolicy";
  public static final String VALIDATE_CACHE_TENANT =
      "/validate-inferencecache-io-v1alpha1-cachetenant";
  public static final String VALIDATE_PD_TOPOLOGY =
      "/validate-inferencecache-io-v1alpha1-pdtopology";
  public static final String VALIDATE_PROMPT_TEMPLATE =
      "/validate-inferencecache-io-v1alpha1-prompttemplate";

  /** Default of {@code --webhook-cert-dir}. */
  public static final String CERT_DIR_DEFAULT = "/tmp/k8s-webhook-server/serving-certs";

  private Webhooks() {}

  /**
   * Every path and its handler.
   *
   * @param client API client for the validators' and the pod webhook's live reads
   * @param sidecar the sidecar to attach, or null when there is no sidecar image
   */
  public static Map<String, AdmissionHandler> handlers(
      final ApiClient client, final SubscriberSidecar sidecar) {
    final Map<String, AdmissionHandler> h = new LinkedHashMap<>();
    final NamespaceLister<CacheBackend> backends = NamespaceLister.live(CacheBackend.CRD, client);
    h.put(POD, new PodInjector(backends, sidecar, NativeSidecars.of(client)));
    h.put(MUTATE_CACHE_BACKEND, new CacheBackendDefaulter());
    h.put(MUTATE_CACHE_POLICY, request -> AdmissionResponse.allow());
    h.put(MUTATE_CACHE_TENANT, request -> AdmissionResponse.allow());
    h.put(VALIDATE_CACHE_BACKEND, new CacheBackendValidator(backends));
    h.put(
        VALIDATE_CACHE_POLICY,
        new CachePolicyValidator(NamespaceLister.live(CachePolicy.CRD, client)));
    h.put(
        VALIDATE_CACHE_TENANT,
        new CacheTenantValidator(NamespaceLister.live(CacheTenant.CRD, client)));
    h.put(VALIDATE_PD_TOPOLOGY, new PDTopologyValidator());
    h.put(VALIDATE_PROMPT_TEMPLATE, new PromptTemplateValidator());
    return h;
  }

  /**
   * The started server, or null when {@code bindAddress} is {@code "0"}.
   *
   * @param subscriberImage {@code --kvevent-subscriber-image}; empty attaches no sidecar
   * @param serverAddress {@code --policy-server-grpc-address}
   * @throws IOException when the address cannot be bound or the certificate pair not loaded
   */
  public static WebhookServer start(
      final String bindAddress,
      final Path certDir,
      final ApiClient client,
      final String subscriberImage,
      final String serverAddress)
      throws IOException {
    if ("0".equals(bindAddress)) {
      return null;
    }
    final SubscriberSidecar sidecar =
        subscriberImage == null || subscriberImage.isBlank()
            ? null
            : new SubscriberSidecar(subscriberImage.strip(), serverAddress);
    return new WebhookServer(bindAddress, certDir, handlers(client, sidecar)).start();
  }
}
