package io.inferencecache.controlplane.webhook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.openapi.ApiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code /validate-inferencecache-io-v1alpha1-cachetenant}: the functional probe's tenant id is
 * reserved, and a tenantID is unique within its namespace (checked on create and on an update that
 * changes the tenantID, against a live list). The same id in two namespaces is admitted; the
 * controller reports the shadowed one as {@code DuplicateTenantID}.
 */
public final class CacheTenantValidator extends CustomResourceValidator<CacheTenant> {
  /** Tenant id of the controller's functional probe. */
  public static final String PROBE_TENANT_ID = "inferencecache.io/probe";

  private final NamespaceLister<CacheTenant> tenants;

  /**
   * @param tenants live lister of CacheTenants; null refuses every uniqueness check (fail closed)
   */
  public CacheTenantValidator(final NamespaceLister<CacheTenant> tenants) {
    super(CacheTenant.CRD);
    this.tenants = tenants;
  }

  @Override
  List<FieldError> objectErrors(final CacheTenant tenant, final ObjectNode raw) {
    final String id = tenantId(tenant);
    if (PROBE_TENANT_ID.equals(id)) {
      return List.of(
          FieldError.invalid(
              "spec.tenantID",
              id,
              "tenantID \"" + PROBE_TENANT_ID + "\" is reserved for the functional probe"));
    }
    return List.of();
  }

  @Override
  List<FieldError> createErrors(final CacheTenant tenant, final String namespace)
      throws LookupFailed {
    return unique(tenant, namespace);
  }

  @Override
  List<FieldError> updateErrors(final CacheTenant tenant, final CacheTenant old, final String ns)
      throws LookupFailed {
    return Objects.equals(tenantId(tenant), tenantId(old)) ? List.of() : unique(tenant, ns);
  }

  private List<FieldError> unique(final CacheTenant tenant, final String namespace)
      throws LookupFailed {
    final String id = tenantId(tenant);
    if (id == null || id.isEmpty()) {
      return List.of();
    }
    if (tenants == null) {
      throw new LookupFailed("CacheTenant validator has no API reader; refusing the request", null);
    }
    final List<String> names = new ArrayList<>();
    try {
      for (final CacheTenant t : tenants.list(namespace)) {
        if (id.equals(tenantId(t)) && t.getMetadata() != null) {
          names.add(t.getMetadata().getName());
        }
      }
    } catch (ApiException | RuntimeException e) {
      throw new LookupFailed(
          "cannot list CacheTenants in namespace "
              + namespace
              + ": "
              + CachePolicyValidator.message(e),
          e);
    }
    final String self = tenant.getMetadata() == null ? null : tenant.getMetadata().getName();
    final String other = smallestOther(names, self);
    if (other == null) {
      return List.of();
    }
    return List.of(
        FieldError.invalid(
            "spec.tenantID",
            id,
            "tenantID is already used by CacheTenant \""
                + other
                + "\" in namespace \""
                + namespace
                + "\""));
  }

  private static String tenantId(final CacheTenant t) {
    return t == null || t.getSpec() == null ? null : t.getSpec().tenantID;
  }
}
