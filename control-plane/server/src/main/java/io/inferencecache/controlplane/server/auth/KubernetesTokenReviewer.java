package io.inferencecache.controlplane.server.auth;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import java.io.IOException;
import java.util.List;

/**
 * {@link TokenReviewer} through the official client: {@code AuthenticationV1Api#createTokenReview}.
 */
public final class KubernetesTokenReviewer implements TokenReviewer {
  private final AuthenticationV1Api api;

  public KubernetesTokenReviewer(final ApiClient client) {
    this.api = new AuthenticationV1Api(client);
  }

  @Override
  public Review review(final String token, final String audience) throws IOException {
    final V1TokenReviewSpec spec = new V1TokenReviewSpec().token(token);
    if (!audience.isEmpty()) {
      spec.audiences(List.of(audience));
    }
    final V1TokenReview request =
        new V1TokenReview().apiVersion("authentication.k8s.io/v1").kind("TokenReview").spec(spec);
    final V1TokenReview response;
    try {
      response = api.createTokenReview(request).execute();
    } catch (ApiException e) {
      throw new IOException("token review failed: HTTP " + e.getCode() + " " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new IOException("token review failed: " + e, e);
    }
    if (response == null || response.getStatus() == null) {
      throw new IOException("token review returned no status");
    }
    final V1TokenReviewStatus status = response.getStatus();
    final String user =
        status.getUser() == null || status.getUser().getUsername() == null
            ? ""
            : status.getUser().getUsername();
    return new Review(
        Boolean.TRUE.equals(status.getAuthenticated()),
        user,
        status.getError() == null ? "" : status.getError());
  }
}
