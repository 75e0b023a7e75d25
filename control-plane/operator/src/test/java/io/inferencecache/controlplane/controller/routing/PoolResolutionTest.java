package io.inferencecache.controlplane.controller.routing;

import static io.inferencecache.controlplane.controller.routing.PdFixtures.SPEC;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.pod;
import static io.inferencecache.controlplane.controller.routing.PdFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.controller.backend.Conditions;
import io.inferencecache.controlplane.k8s.model.PDTopology;
import io.inferencecache.controlplane.k8s.validation.PdTopologyRules;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolResolutionTest {
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 12, 6, 7, 0, 0, 0, ZoneOffset.UTC);

  private static List<PoolResolution.Pool> resolve(final String spec, final V1Pod... pods) {
    return PoolResolution.resolve(topology("team-a", "t", spec).getSpec(), List.of(pods));
  }

  private static V1Condition ready(final PDTopology.Status st) {
    return Conditions.get(st.conditions, PdTopologyVerdict.READY);
  }

  private static PDTopology.Status verdict(final String spec, final V1Pod... pods) {
    final PDTopology t = topology("team-a", "t", spec);
    return PdTopologyVerdict.status(
        null,
        t.generation(),
        PdTopologyRules.check(t.getSpec(), PdTopologyBody.transport(t.getSpec())),
        PoolResolution.resolve(t.getSpec(), List.of(pods)),
        "team-a",
        T0);
  }

  @Test
  void aPoolTakesTheRunningPodsWithAllItsLabelsByPodNameWithTheirNode() {
    final List<PoolResolution.Pool> pools =
        resolve(
            "{'prefillPools':[{'name':'p','matchLabels':{'app':'llama','role':'prefill'}}],"
                + "'decodePools':[{'name':'d','matchLabels':{'role':'decode'}}]}",
            pod("pf-1", Map.of("app", "llama", "role", "prefill"), "Running", "node-2"),
            pod("pf-0", Map.of("app", "llama", "role", "prefill", "x", "y"), "Running", "node-1"),
            pod("pf-other", Map.of("app", "mistral", "role", "prefill"), "Running", "node-1"),
            pod("pf-pending", Map.of("app", "llama", "role", "prefill"), "Pending", null),
            pod("dc-0", Map.of("role", "decode"), "Running", "node-1"));
    assertThat(pools).hasSize(2);
    assertThat(pools.get(0).role()).isEqualTo(PDTopology.Role.PREFILL);
    assertThat(pools.get(0).members())
        .containsExactly(
            new PoolResolution.Member("pf-0", "node-1"),
            new PoolResolution.Member("pf-1", "node-2"));
    assertThat(pools.get(0).matched()).isEqualTo(3);
    assertThat(pools.get(0).gap()).isNull();
    assertThat(pools.get(1).members()).containsExactly(new PoolResolution.Member("dc-0", "node-1"));
  }

  @Test
  void aPodBeingDeletedIsNoMember() {
    final V1Pod going = pod("dc-0", Map.of("role", "decode"), "Running", "n");
    going.getMetadata().setDeletionTimestamp(T0);
    final List<PoolResolution.Pool> pools = resolve(SPEC, going);
    assertThat(pools.get(1).members()).isEmpty();
    assertThat(pools.get(1).gap()).isEqualTo(PoolResolution.Gap.PODS_NOT_RUNNING);
  }

  @Test
  void everyPoolWithAReplicaIsReadyWithItsCount() {
    final PDTopology.Status st =
        verdict(
            SPEC,
            pod("pf-0", Map.of("role", "prefill"), "Running", "n1"),
            pod("dc-0", Map.of("role", "decode"), "Running", "n1"),
            pod("dc-1", Map.of("role", "decode"), "Running", "n2"));
    assertThat(st.observedGeneration).isEqualTo(3L);
    assertThat(ready(st).getStatus()).isEqualTo("True");
    assertThat(ready(st).getReason()).isEqualTo("PoolsResolved");
    assertThat(ready(st).getMessage())
        .isEqualTo("prefill pool prefill: 1 replica, decode pool decode: 2 replicas");
    assertThat(ready(st).getObservedGeneration()).isEqualTo(3L);
    assertThat(st.pools)
        .extracting(p -> p.name + "/" + p.role + "/" + p.replicas)
        .containsExactly("prefill/PREFILL/1", "decode/DECODE/2");
  }

  @Test
  void aPoolWithoutPodsMakesReadyFalseNamingItAndWhy() {
    final PDTopology.Status st =
        verdict(
            SPEC,
            pod("pf-0", Map.of("role", "prefill"), "Running", "n1"),
            pod("dc-0", Map.of("role", "decode"), "Pending", null));
    assertThat(ready(st).getStatus()).isEqualTo("False");
    assertThat(ready(st).getReason()).isEqualTo("PodsNotRunning");
    assertThat(ready(st).getMessage())
        .isEqualTo(
            "pools without a Running replica: decode pool decode (1 pod has the labels"
                + " role=decode, none is Running)");
    final PDTopology.Status none = verdict(SPEC);
    assertThat(ready(none).getReason()).isEqualTo("NoMatchingPods");
    assertThat(ready(none).getMessage())
        .isEqualTo(
            "pools without a Running replica: prefill pool prefill (no pod in namespace team-a"
                + " has the labels role=prefill); decode pool decode (no pod in namespace team-a"
                + " has the labels role=decode)");
  }

  @Test
  void aSpecBreakingTheRulesIsInvalidNamingTheField() {
    final PDTopology.Status st =
        verdict(
            "{'prefillPools':[{'name':'p','acceleratorType':'a100','matchLabels':{'r':'p'}}],"
                + "'decodePools':[{'name':'d'}]}");
    assertThat(ready(st).getStatus()).isEqualTo("False");
    assertThat(ready(st).getReason()).isEqualTo("InvalidSpec");
    assertThat(ready(st).getMessage())
        .isEqualTo(
            "not pushed to the server: spec.prefillPools[0].acceleratorType (\"a100\"): names no"
                + " entry of spec.acceleratorTypes; spec.decodePools[0].matchLabels: a pool"
                + " selects its pods by labels; an empty selector would take every pod");
    assertThat(st.pools).extracting(p -> p.replicas).containsExactly(0, 0);
  }

  @Test
  void anUnchangedVerdictKeepsItsTransitionTimeAndAChangedOneMovesIt() {
    final PDTopology.Status first = verdict(SPEC);
    final PDTopology t = topology("team-a", "t", SPEC);
    final OffsetDateTime later = T0.plusMinutes(5);
    final PDTopology.Status same =
        PdTopologyVerdict.status(
            first, 3, List.of(), PoolResolution.resolve(t.getSpec(), List.of()), "team-a", later);
    assertThat(ready(same).getLastTransitionTime()).isEqualTo(T0);
    final PDTopology.Status moved =
        PdTopologyVerdict.status(
            first,
            3,
            List.of(),
            PoolResolution.resolve(
                t.getSpec(),
                List.of(
                    pod("a", Map.of("role", "prefill"), "Running", "n"),
                    pod("b", Map.of("role", "decode"), "Running", "n"))),
            "team-a",
            later);
    assertThat(ready(moved).getStatus()).isEqualTo("True");
    assertThat(ready(moved).getLastTransitionTime()).isEqualTo(later);
  }
}
