package io.inferencecache.controlplane.server.auth;

import java.io.IOException;

/** Asks the Kubernetes API server who a bearer token belongs to (a TokenReview). */
public interface TokenReviewer {
  /**
   * The API server's verdict.
   *
   * @param authenticated whether the token is valid for the requested audience
   * @param username the authenticated user ({@code system:serviceaccount:<ns>:<name>}), or empty
   * @param error the API server's {@code status.error}, or empty
   */
  record Review(boolean authenticated, String username, String error) {}

  /**
   * Reviews {@code token} for {@code audience} (empty: no audience is sent).
   *
   * @throws IOException when the review could not be obtained (transport or API error, no answer):
   *     callers fail closed
   */
  Review review(String token, String audience) throws IOException;
}
