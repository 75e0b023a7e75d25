package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import io.kubernetes.client.openapi.ApiException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /validate-inferencecache-io-v1alpha1-cachepolicy}: a positive {@code evictionTTL}, no
 * {@code requireChain} with chain matching switched off, and one CachePolicy per namespace (checked
 * on create only, against a live list).
 */
public final class CachePolicyValidator extends CustomResourceValidator<CachePolicy> {
  private final NamespaceLister<CachePolicy> policies;

  /**
   * @param policies live lister of CachePolicies; null refuses every create (fail closed)
   */
  public CachePolicyValidator(final NamespaceLister<CachePolicy> policies) {
    super(CachePolicy.CRD);
    this.policies = policies;
  }

  @Override
  List<FieldError> objectErrors(final CachePolicy policy, final ObjectNode raw) {
    final List<FieldError> errors = new ArrayList<>();
    final CachePolicy.Spec spec = policy.getSpec();
    if (spec == null) {
      return errors;
    }
    if (spec.evictionTTL != null) {
      try {
        final Duration ttl = GoDuration.parse(spec.evictionTTL);
        if (ttl.isZero() || ttl.isNegative()) {
          errors.add(
              FieldError.invalid(
                  "spec.evictionTTL", spec.evictionTTL, "evictionTTL must be greater than zero"));
        }
      } catch (IllegalArgumentException e) {
        errors.add(
            FieldError.invalid(
                "spec.evictionTTL", spec.evictionTTL, "not a duration: " + e.getMessage()));
      }
    }
    final CachePolicy.Strategy s = spec.strategy;
    if (s != null
        && Boolean.TRUE.equals(s.requireChain)
        && Boolean.FALSE.equals(s.enableChainMatching)) {
      errors.add(
          FieldError.invalid(
              "spec.strategy.requireChain",
              true,
              "requireChain requires enableChainMatching to be true"));
    }
    return errors;
  }

  @Override
  List<FieldError> createErrors(final CachePolicy policy, final String namespace)
      throws LookupFailed {
    if (policies == null) {
      throw new LookupFailed("CachePolicy validator has no API reader; refusing the create", null);
    }
    final List<String> names = new ArrayList<>();
    try {
      for (final CachePolicy p : policies.list(namespace)) {
        names.add(p.getMetadata() == null ? null : p.getMetadata().getName());
      }
    } catch (ApiException | RuntimeException e) {
      throw new LookupFailed(
          "cannot list CachePolicies in namespace " + namespace + ": " + message(e), e);
    }
    final String self = policy.getMetadata() == null ? null : policy.getMetadata().getName();
    final String other = smallestOther(names, self);
    if (other == null) {
      return List.of();
    }
    return List.of(
        FieldError.forbidden(
            "metadata.name",
            "only one CachePolicy is allowed per namespace: CachePolicy \""
                + other
                + "\" already exists in namespace \""
                + namespace
                + "\""));
  }

  /** A one-line reason of a failed API call. */
  static String message(final Exception e) {
    if (e instanceof ApiException a) {
      if (a.getCode() != 0) {
        return "HTTP " + a.getCode() + " " + String.valueOf(a.getResponseBody()).strip();
      }
      if (a.getCause() != null) {
        return a.getCause().toString();
      }
      final String m = String.valueOf(a.getMessage()).strip();
      final int nl = m.indexOf('\n');
      return (nl < 0 ? m : m.substring(0, nl)).replaceFirst("^Message: ", "");
    }
    return String.valueOf(e.getMessage());
  }
}
