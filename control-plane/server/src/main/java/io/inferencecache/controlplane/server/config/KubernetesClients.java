package io.inferencecache.controlplane.server.config;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds the official client's {@link ApiClient} from {@link KubernetesSettings}: {@code
 * apiServerUrl} (optionally with a bearer token file and a CA file), else a {@code kubeconfig}
 * file, else the in-cluster configuration. Any failure is an {@link IOException} (exit 1).
 */
public final class KubernetesClients {
  private KubernetesClients() {}

  public static ApiClient build(final KubernetesSettings s) throws IOException {
    final ClientBuilder builder;
    if (!s.getApiServerUrl().isBlank()) {
      builder = new ClientBuilder().setBasePath(s.getApiServerUrl().strip());
      builder.setVerifyingSsl(s.isVerifyTls());
      if (!s.getBearerTokenFile().isBlank()) {
        final String token =
            Files.readString(Path.of(s.getBearerTokenFile()), StandardCharsets.UTF_8).strip();
        builder.setAuthentication(new AccessTokenAuthentication(token));
      }
      if (!s.getCaCertFile().isBlank()) {
        builder.setCertificateAuthority(Files.readAllBytes(Path.of(s.getCaCertFile())));
      }
    } else if (!s.getKubeconfig().isBlank()) {
      try (Reader r = Files.newBufferedReader(Path.of(s.getKubeconfig()), StandardCharsets.UTF_8)) {
        builder = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(r));
      }
    } else {
      if (System.getenv("KUBERNETES_SERVICE_HOST") == null) {
        throw new IOException(
            "in-cluster config: KUBERNETES_SERVICE_HOST is not set (outside a cluster, set"
                + " kubernetes.kubeconfig or kubernetes.apiServerUrl)");
      }
      builder = ClientBuilder.cluster();
    }
    builder.setReadTimeout(java.time.Duration.ofMillis(s.getRequestTimeout().toMilliseconds()));
    final ApiClient client;
    try {
      client = builder.build();
    } catch (RuntimeException e) {
      throw new IOException("kubernetes client: " + e.getMessage(), e);
    }
    client.setConnectTimeout((int) s.getConnectTimeout().toMilliseconds());
    client.setReadTimeout((int) s.getRequestTimeout().toMilliseconds());
    client.setWriteTimeout((int) s.getRequestTimeout().toMilliseconds());
    return client;
  }
}
