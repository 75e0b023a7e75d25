package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheTenantValidatorTest {
  private final List<CacheTenant> existing = new ArrayList<>();
  private final CacheTenantValidator validator = new CacheTenantValidator(ns -> existing);

  private static CacheTenant tenant(final String name, final String id) {
    final CacheTenant t = new CacheTenant();
    t.setMetadata(new V1ObjectMeta().name(name).namespace("ns"));
    t.setSpec(new CacheTenant.Spec());
    t.getSpec().tenantID = id;
    return t;
  }

  private static String json(final String name, final String id) {
    return "{'metadata':{'name':'" + name + "','namespace':'ns'},'spec':{'tenantID':'" + id + "'}}";
  }

  @Test
  void duplicateTenantIdInTheNamespaceIsRefusedNamingTheSmallestOwner() {
    existing.add(tenant("zz", "team-a"));
    existing.add(tenant("bb", "team-a"));
    existing.add(tenant("aa", "team-b"));
    final AdmissionResponse r =
        validator.handle(Reviews.create("CacheTenant", "ns", json("new", "team-a")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .isEqualTo(
            "CacheTenant.inferencecache.io \"new\" is invalid: spec.tenantID: Invalid value:"
                + " \"team-a\": tenantID is already used by CacheTenant \"bb\" in namespace \"ns\"");
    assertThat(
            validator.handle(Reviews.create("CacheTenant", "ns", json("new", "team-c"))).allowed())
        .isTrue();
  }

  @Test
  void reservedProbeTenantIdIsRefused() {
    final AdmissionResponse r =
        validator.handle(Reviews.create("CacheTenant", "ns", json("t", "inferencecache.io/probe")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains("tenantID \"inferencecache.io/probe\" is reserved for the functional probe");
  }

  @Test
  void updateChecksUniquenessOnlyWhenTheTenantIdChanges() {
    existing.add(tenant("other", "team-a"));
    existing.add(tenant("t", "team-a"));
    assertThat(
            validator
                .handle(
                    Reviews.update("CacheTenant", "ns", json("t", "team-a"), json("t", "team-a")))
                .allowed())
        .isTrue();
    assertThat(
            validator
                .handle(
                    Reviews.update("CacheTenant", "ns", json("t", "team-a"), json("t", "team-x")))
                .allowed())
        .isFalse();
  }

  @Test
  void deleteIsAlwaysAllowed() {
    assertThat(
            new CacheTenantValidator(null)
                .handle(
                    Reviews.request(
                        "DELETE", "inferencecache.io", "CacheTenant", "ns", null, json("t", "x")))
                .allowed())
        .isTrue();
  }

  @Test
  void nilReaderAndListErrorFailClosed() {
    assertThat(
            new CacheTenantValidator(null)
                .handle(Reviews.create("CacheTenant", "ns", json("t", "x")))
                .code())
        .isEqualTo(403);
    final AdmissionResponse r =
        new CacheTenantValidator(
                ns -> {
                  throw new ApiException("connection refused");
                })
            .handle(Reviews.create("CacheTenant", "ns", json("t", "x")));
    assertThat(r.allowed()).isFalse();
    assertThat(r.message())
        .contains("cannot list CacheTenants in namespace ns: connection refused");
  }
}
