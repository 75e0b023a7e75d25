package io.inferencecache.engine.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link PdTopologyStore} and the model's defaults and checks. */
class PdTopologyStoreTest {
  private final Map<String, Integer> ids = new HashMap<>();
  private final PdTopologyStore store =
      new PdTopologyStore(s -> ids.computeIfAbsent(s, k -> ids.size()));

  static PdTopology topology(final String ns, final String name, final PdMember... prefill) {
    return new PdTopology(
        ns,
        name,
        null,
        0,
        null,
        0,
        List.of(new PdPool("prefill", "h100", List.of(prefill))),
        List.of(new PdPool("decode", "a10", List.of(new PdMember("dc-0", "n1")))),
        List.of(
            new AcceleratorType("h100", "nvidia", "H100"),
            new AcceleratorType("a10", "nvidia", null)));
  }

  @Test
  void readsByRefAndByNamespaceIdTheLastOfEachRefWinning() {
    final PdTopology a = topology("team-a", "one", new PdMember("pf-0", "n0"));
    final PdTopology b = topology("team-a", "two", new PdMember("pf-1", "n0"));
    final PdTopology a2 = topology("team-a", "one", new PdMember("pf-9", "n0"));
    assertThat(store.replace(new PdTopologySnapshot(1, List.of(a, b, a2)))).isEqualTo(1);
    assertThat(store.byRef("team-a/one").topology()).isSameAs(a2);
    assertThat(store.byRef("team-a/none")).isNull();
    assertThat(store.byRef(null)).isNull();
    assertThat(store.inNamespace(ids.get("team-a"))).hasSize(2);
    assertThat(store.inNamespace(-1)).isEmpty();
    assertThat(store.inNamespace(999)).isEmpty();
    assertThat(store.all())
        .extracting(CompiledTopology::ref)
        .containsExactly("team-a/two", "team-a/one");
    assertThat(store.current().topologies()).containsExactly(a, b, a2);
    store.replace(PdTopologySnapshot.EMPTY);
    assertThat(store.byRef("team-a/one")).isNull();
    assertThat(store.generation()).isEqualTo(2);
  }

  @Test
  void compilesMembersWithInternedIdsRanksAndLinkClasses() {
    final PdTopology t =
        topology(
            "ns",
            "t",
            new PdMember("pf-b", "n1"),
            new PdMember("pf-a", "n0"),
            new PdMember("pf-a", "n5"));
    store.replace(new PdTopologySnapshot(1, List.of(t)));
    final CompiledTopology c = store.byRef("ns/t");
    assertThat(c.size(CompiledTopology.PREFILL)).isEqualTo(2); // pf-a listed twice counts once
    assertThat(c.replicaName(CompiledTopology.PREFILL, 0)).isEqualTo("pf-b");
    assertThat(c.replica(CompiledTopology.PREFILL, 0)).isEqualTo(ids.get("pf-b"));
    // Replica-id order over the whole topology: dc-0, pf-a, pf-b.
    assertThat(c.rank(CompiledTopology.PREFILL, 0)).isEqualTo(2);
    assertThat(c.rank(CompiledTopology.PREFILL, 1)).isEqualTo(1);
    assertThat(c.rank(CompiledTopology.DECODE, 0)).isZero();
    // pf-b shares node n1 with dc-0; pf-a (n0) only the vendor.
    assertThat(c.bytesPerMs(0, 0)).isEqualTo(PdLinks.SAME_NODE_GBPS_DEFAULT * 1e6);
    assertThat(c.bytesPerMs(1, 0)).isEqualTo(PdLinks.SAME_VENDOR_GBPS_DEFAULT * 1e6);
    assertThat(c.kvBytesPerToken()).isEqualTo(PdTopology.KV_BYTES_PER_TOKEN_DEFAULT);
    assertThat(c.transport()).isEmpty();
    assertThat(c.decodeLocalPrefillTokens()).isZero();
  }

  @Test
  void listenersRunAfterEachReplace() {
    final AtomicInteger runs = new AtomicInteger();
    final Runnable l = runs::incrementAndGet;
    store.addListener(l);
    store.replace(PdTopologySnapshot.EMPTY);
    assertThat(runs).hasValue(1);
    assertThat(store.removeListener(l)).isTrue();
    store.replace(PdTopologySnapshot.EMPTY);
    assertThat(runs).hasValue(1);
  }

  @Test
  void theModelRefusesWhatCannotBeRouted() {
    assertThatThrownBy(() -> topology("a/b", "t")).hasMessageContaining("namespace");
    assertThatThrownBy(() -> topology("ns", "")).hasMessageContaining("name");
    assertThatThrownBy(
            () -> new PdTopology("ns", "t", "RDMA", 0, null, 0, List.of(), List.of(), List.of()))
        .hasMessageContaining("transport");
    assertThatThrownBy(
            () -> new PdTopology("ns", "t", "", -1, null, 0, List.of(), List.of(), List.of()))
        .hasMessageContaining("decodeLocalPrefillTokens");
    assertThatThrownBy(
            () -> new PdTopology("ns", "t", "", 0, null, 0, List.of(), List.of(), List.of()))
        .hasMessageContaining("prefillPools");
    assertThatThrownBy(() -> new PdLinks(1, 0, 1)).hasMessageContaining("sameVendorGBps");
    assertThatThrownBy(() -> new PdLinks(1, 1, Double.NaN)).hasMessageContaining("crossGBps");
    assertThatThrownBy(() -> new PdMember("", "n")).hasMessageContaining("replicaId");
    assertThatThrownBy(() -> new PdPool("", "", null)).hasMessageContaining("name");
    assertThatThrownBy(() -> new AcceleratorType("", "v", "m")).hasMessageContaining("name");
  }
}
