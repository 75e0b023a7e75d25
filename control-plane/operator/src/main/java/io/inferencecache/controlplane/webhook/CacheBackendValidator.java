package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.ApiException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * {@code /validate-inferencecache-io-v1alpha1-cachebackend}: the rules of {@link CacheBackendRules}
 * (introduced-only on update) and, on every create and update, the canonical engine selector and
 * one owner per cache domain in the namespace (never grandfathered: an update of an unrelated field
 * is refused while the selector is wrong or overlaps).
 */
public final class CacheBackendValidator extends CustomResourceValidator<CacheBackend> {
  private final NamespaceLister<CacheBackend> backends;

  /**
   * @param backends live lister of CacheBackends; null skips the overlap check
   */
  public CacheBackendValidator(final NamespaceLister<CacheBackend> backends) {
    super(CacheBackend.CRD);
    this.backends = backends;
  }

  @Override
  List<FieldError> objectErrors(final CacheBackend backend, final ObjectNode raw) {
    final String ns = backend.getMetadata() == null ? "" : backend.getMetadata().getNamespace();
    return CacheBackendRules.all(backend, ns == null ? "" : ns, rawProvider(raw));
  }

  /** {@code spec.remoteStorage.provider} as sent, or null when absent or not a string. */
  static String rawProvider(final ObjectNode raw) {
    final JsonNode p = raw == null ? null : raw.at("/spec/remoteStorage/provider");
    return p == null || !p.isTextual() ? null : p.asText();
  }

  @Override
  List<FieldError> createErrors(final CacheBackend backend, final String namespace)
      throws LookupFailed {
    return domain(backend, namespace);
  }

  @Override
  List<FieldError> updateErrors(
      final CacheBackend backend, final CacheBackend old, final String namespace)
      throws LookupFailed {
    return domain(backend, namespace);
  }

  private List<FieldError> domain(final CacheBackend backend, final String namespace)
      throws LookupFailed {
    final List<FieldError> errors = new ArrayList<>();
    CacheBackendRules.engineSelectorDomain(backend.getSpec(), errors);
    final String domain = domainOf(backend);
    if (domain == null || domain.isEmpty() || backends == null) {
      return errors;
    }
    final List<CacheBackend> siblings;
    try {
      siblings = new ArrayList<>(backends.list(namespace));
    } catch (ApiException | RuntimeException e) {
      throw new LookupFailed(
          "cannot list CacheBackends in namespace "
              + namespace
              + ": "
              + CachePolicyValidator.message(e),
          e);
    }
    siblings.sort(Comparator.comparing(CacheBackendValidator::name));
    final String self = name(backend);
    for (final CacheBackend other : siblings) {
      if (!Objects.equals(name(other), self) && domain.equals(domainOf(other))) {
        errors.add(
            FieldError.invalid(
                "spec.engineSelector.matchLabels[" + CacheBackendRules.CACHE_DOMAIN + "]",
                domain,
                "cache domain \""
                    + domain
                    + "\" is already owned by CacheBackend \""
                    + name(other)
                    + "\" in namespace \""
                    + namespace
                    + "\""));
        break;
      }
    }
    return errors;
  }

  private static String name(final CacheBackend b) {
    return b.getMetadata() == null || b.getMetadata().getName() == null
        ? ""
        : b.getMetadata().getName();
  }

  static String domainOf(final CacheBackend b) {
    return b.getSpec() == null
        ? null
        : CacheBackendRules.matchLabels(b.getSpec()).get(CacheBackendRules.CACHE_DOMAIN);
  }
}
