package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.engine.pd.PdLinks;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link PdTopologyJson}: the documented body, defaults, the canonical form, and strictness. */
class PdTopologyJsonTest {
  static final String FULL =
      """
      {"version":1,"topologies":[{
        "namespace":"team-a","name":"llama-pd",
        "transport":"NIXL",
        "decodeLocalPrefillTokens":512,
        "links":{"sameNodeGBps":300,"sameVendorGBps":50,"crossGBps":10.5},
        "kvBytesPerToken":131072,
        "prefillPools":[{"name":"prefill","acceleratorType":"h100",
          "members":[{"replicaId":"pf-0","node":"node-1"}]}],
        "decodePools":[{"name":"decode","acceleratorType":"h100",
          "members":[{"replicaId":"dc-0","node":"node-1"}]}],
        "acceleratorTypes":[{"name":"h100","vendor":"nvidia","model":"H100-80GB"}]}]}
      """;

  static PdTopologySnapshot decode(final String s) throws JsonDecodeException {
    final byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return PdTopologyJson.decode(b, b.length);
  }

  static String minimal(final String topologyFields) {
    return "{\"version\":1,\"topologies\":[{\"namespace\":\"ns\",\"name\":\"t\","
        + "\"prefillPools\":[{\"name\":\"p\",\"members\":[{\"replicaId\":\"pf-0\"}]}],"
        + "\"decodePools\":[{\"name\":\"d\"}]"
        + topologyFields
        + "}]}";
  }

  @Test
  void decodesTheDocumentedBody() throws Exception {
    final PdTopologySnapshot s = decode(FULL);
    assertThat(s.version()).isEqualTo(1);
    final PdTopology t = s.topologies().get(0);
    assertThat(t.ref()).isEqualTo("team-a/llama-pd");
    assertThat(t.transport()).isEqualTo("NIXL");
    assertThat(t.decodeLocalPrefillTokens()).isEqualTo(512);
    assertThat(t.links()).isEqualTo(new PdLinks(300, 50, 10.5));
    assertThat(t.kvBytesPerToken()).isEqualTo(131_072);
    assertThat(t.prefillPools().get(0).members().get(0).node()).isEqualTo("node-1");
    assertThat(t.acceleratorTypes().get(0).vendor()).isEqualTo("nvidia");
  }

  @Test
  void absentFieldsTakeTheirDefaultsAndTheCanonicalFormRoundTrips() throws Exception {
    final PdTopologySnapshot s = decode(minimal(""));
    final PdTopology t = s.topologies().get(0);
    assertThat(t.transport()).isEmpty();
    assertThat(t.decodeLocalPrefillTokens()).isZero();
    assertThat(t.links()).isEqualTo(PdLinks.DEFAULTS);
    assertThat(t.kvBytesPerToken()).isEqualTo(PdTopology.KV_BYTES_PER_TOKEN_DEFAULT);
    assertThat(t.decodePools().get(0).members()).isEmpty();
    final String canonical = PdTopologyJson.write(s);
    assertThat(canonical).contains("\"crossGBps\":10.0").contains("\"kvBytesPerToken\":131072");
    assertThat(decode(canonical)).isEqualTo(s);
    final String full = PdTopologyJson.write(decode(FULL));
    assertThat(PdTopologyJson.write(decode(full))).isEqualTo(full);
    assertThat(decode("{\"version\":1}").topologies()).isEmpty();
    assertThat(PdTopologyJson.write(PdTopologySnapshot.EMPTY))
        .isEqualTo("{\"version\":1,\"topologies\":[]}");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"version\":2} | version: must be 1",
        "{\"topologies\":[]} | version: must be 1",
        "{\"version\":1.0} | version: must be 1",
        "[] | body: must be an object",
        "{\"version\":1,\"extra\":1} | extra: unknown field",
        "{\"version\":1,\"topologies\":{}} | topologies: must be an array",
        "{\"version\":1,\"topologies\":[1]} | topologies[0]: must be an object",
        "{\"version\":1,\"version\":1} | invalid JSON",
        "{\"version\":1} x | invalid JSON",
        "{\"version\": | invalid JSON",
        "'' | empty body"
      })
  void refusesAMalformedEnvelopeNamingIt(final String body, final String message) {
    assertThatThrownBy(() -> decode(body))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining(message.trim());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        ",\"transport\":\"RDMA\" | topologies[0].transport: must be Mooncake, NIXL or Direct",
        ",\"transport\":1 | topologies[0].transport: must be a string",
        ",\"decodeLocalPrefillTokens\":-1 | topologies[0].decodeLocalPrefillTokens: must be an integer",
        ",\"decodeLocalPrefillTokens\":1.5 | topologies[0].decodeLocalPrefillTokens: must be an integer",
        ",\"decodeLocalPrefillTokens\":\"5\" | topologies[0].decodeLocalPrefillTokens: must be an integer",
        ",\"decodeLocalPrefillTokens\":4294967296 | topologies[0].decodeLocalPrefillTokens: must be an integer",
        ",\"kvBytesPerToken\":0 | topologies[0].kvBytesPerToken: must be an integer in [1,",
        ",\"links\":{\"crossGBps\":0} | topologies[0].links.crossGBps: must be a number > 0",
        ",\"links\":{\"sameNodeGBps\":\"fast\"} | topologies[0].links.sameNodeGBps: must be a number",
        ",\"links\":{\"wan\":1} | topologies[0].links.wan: unknown field",
        ",\"links\":[] | topologies[0].links: must be an object",
        ",\"color\":\"red\" | topologies[0].color: unknown field",
        ",\"acceleratorTypes\":[{\"vendor\":\"x\"}] | topologies[0].acceleratorTypes[0].name: must be a non-empty string",
        ",\"acceleratorTypes\":[{\"name\":\"a\"},{\"name\":\"a\"}] | topologies[0].acceleratorTypes[1].name: duplicate"
      })
  void refusesABadTopologyFieldNamingItsPath(final String extra, final String message) {
    assertThatThrownBy(() -> decode(minimal(extra.trim())))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining(message.trim());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"namespace\":\"a/b\",\"name\":\"t\"} | topologies[0].namespace: must not contain",
        "{\"name\":\"t\"} | topologies[0].namespace: must be a non-empty string",
        "{\"namespace\":\"ns\",\"name\":\"\"} | topologies[0].name: must be a non-empty string",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools: must be an array of at least one pool",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools: must be an array",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\"}]} | topologies[0].decodePools: must be an array",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\",\"acceleratorType\":\"tpu\"}],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools[0].acceleratorType: no acceleratorTypes entry named tpu",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\"},{\"name\":\"p\"}],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools[1].name: duplicate pool p",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\",\"members\":[{\"node\":\"n\"}]}],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools[0].members[0].replicaId: must be a non-empty string",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\",\"members\":[{\"replicaId\":\"a\"},{\"replicaId\":\"a\"}]}],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools[0].members[1].replicaId: listed twice",
        "{\"namespace\":\"ns\",\"name\":\"t\",\"prefillPools\":[{\"name\":\"p\",\"members\":[{\"replicaId\":\"a\",\"zone\":\"z\"}]}],\"decodePools\":[{\"name\":\"d\"}]} | topologies[0].prefillPools[0].members[0].zone: unknown field"
      })
  void refusesABadTopologyNamingTheField(final String topology, final String message) {
    assertThatThrownBy(() -> decode("{\"version\":1,\"topologies\":[" + topology.trim() + "]}"))
        .isInstanceOf(JsonDecodeException.class)
        .hasMessageContaining(message.trim());
  }

  @Test
  void refusesTwoTopologiesWithOneRef() {
    final String body = minimal("");
    final String topology = body.substring(body.indexOf("[{") + 1, body.lastIndexOf("]}"));
    assertThatThrownBy(
            () -> decode("{\"version\":1,\"topologies\":[" + topology + "," + topology + "]}"))
        .hasMessageContaining("topologies[1]: duplicate namespace/name ns/t");
  }

  @Test
  void readsOnlyTheGivenLength() throws Exception {
    final byte[] b = (FULL + "garbage").getBytes(StandardCharsets.UTF_8);
    assertThat(PdTopologyJson.decode(b, FULL.getBytes(StandardCharsets.UTF_8).length).topologies())
        .hasSize(1);
  }
}
