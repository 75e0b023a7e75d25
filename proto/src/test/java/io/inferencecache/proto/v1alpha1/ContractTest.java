package io.inferencecache.proto.v1alpha1;

import static com.google.protobuf.Descriptors.FieldDescriptor.Type.BOOL;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.BYTES;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.DOUBLE;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.ENUM;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.FLOAT;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.INT32;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.INT64;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.MESSAGE;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.STRING;
import static com.google.protobuf.Descriptors.FieldDescriptor.Type.UINT32;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pins the wire contract to upstream's {@code inferencecache.v1alpha1} (dataplane
 * docs/behaviour.md#rpcs and docs/behaviour.md#messages). The tables below are written from the
 * spec, not from the generated code: any rename, renumber, retype, change of label or extra/missing
 * element in the {@code .proto} fails here. Our additive extensions carry field numbers from 100 on
 * ({@link #EXTENSION_FIELDS}), clear of upstream's, and are listed here too.
 */
class ContractTest {
  private static final String PKG = "inferencecache.v1alpha1";
  private static final String SERVICE = PKG + ".InferenceCache";

  private static final FileDescriptor FILE = InferenceCacheProto.getDescriptor();

  /** One expected field: number, name, wire type, repeated or not, and referenced type if any. */
  private record F(
      int number, String name, FieldDescriptor.Type type, boolean repeated, String ref) {
    boolean isMap() {
      return ref != null && ref.startsWith("map:");
    }
  }

  private static F f(final int number, final String name, final FieldDescriptor.Type type) {
    return new F(number, name, type, false, null);
  }

  private static F rep(final int number, final String name, final FieldDescriptor.Type type) {
    return new F(number, name, type, true, null);
  }

  private static F msg(final int number, final String name, final String simpleName) {
    return new F(number, name, MESSAGE, false, PKG + "." + simpleName);
  }

  private static F repMsg(final int number, final String name, final String simpleName) {
    return new F(number, name, MESSAGE, true, PKG + "." + simpleName);
  }

  private static F enm(final int number, final String name, final String simpleName) {
    return new F(number, name, ENUM, false, PKG + "." + simpleName);
  }

  private static F repEnm(final int number, final String name, final String simpleName) {
    return new F(number, name, ENUM, true, PKG + "." + simpleName);
  }

  /**
   * {@code map<string,string>}: on the wire a repeated message of (1 key string, 2 value string).
   */
  private static F stringMap(final int number, final String name) {
    return new F(number, name, MESSAGE, true, "map:string,string");
  }

  /**
   * Every top-level message of docs/behaviour.md#messages, in declaration order, with every field.
   */
  private static final Map<String, List<F>> MESSAGES = new LinkedHashMap<>();

  /** Field numbers from here on are inference-cache's own additions, never upstream's. */
  static final int EXTENSION_FIELDS = 100;

  /** LookupPDRoute's extension fields (numbered from 100 on). */
  static final java.util.Set<String> PD_EXTENSIONS =
      java.util.Set.of(
          "LookupPDRouteRequest.block_hashes",
          "LookupPDRouteRequest.block_token_counts",
          "LookupPDRouteRequest.hash_scheme",
          "LookupPDRouteRequest.adapter_id",
          "LookupPDRouteRequest.prompt_token_count",
          "LookupPDRouteResponse.prefill_matched_tokens",
          "LookupPDRouteResponse.prefill_pool",
          "LookupPDRouteResponse.decode_pool",
          "LookupPDRouteResponse.message",
          "LookupPDRouteResponse.lookup_latency_us",
          "LookupPDRouteResponse.pd_topology");

  static {
    MESSAGES.put("SLO", List.of(f(1, "ttft_ms", INT32), f(2, "tbt_ms", INT32)));
    MESSAGES.put(
        "RenderTemplateRequest",
        List.of(
            f(1, "template_ref", STRING), stringMap(2, "variables"), f(3, "tenant_id", STRING)));
    MESSAGES.put(
        "RenderTemplateResponse",
        List.of(
            f(1, "rendered_prompt", BYTES),
            f(2, "stable_prefix_hash", BYTES),
            f(3, "tenant_namespace", BYTES),
            f(4, "reason_code", STRING),
            f(5, "template_revision", STRING)));
    MESSAGES.put(
        "LookupRouteRequest",
        List.of(
            f(1, "model_id", STRING),
            f(2, "tenant_id", STRING),
            f(3, "prefix_hash", BYTES),
            f(4, "prefix_token_count", INT32),
            f(5, "hash_scheme", STRING),
            msg(6, "slo", "SLO"),
            rep(7, "block_hashes", BYTES),
            rep(8, "block_token_counts", INT32),
            rep(9, "token_ids", UINT32),
            f(10, "prompt_text", STRING),
            f(11, "adapter_id", STRING),
            f(100, "max_replicas", INT32))); // extension: the answer cap
    MESSAGES.put(
        "ReplicaScore",
        List.of(
            f(1, "replica_id", STRING),
            f(2, "score", FLOAT),
            f(3, "matched_tokens", INT32),
            f(4, "estimated_cache_hit_prob", FLOAT),
            enm(5, "tier", "CacheTier")));
    MESSAGES.put(
        "LookupRouteResponse",
        List.of(
            repMsg(1, "replica_scores", "ReplicaScore"),
            f(2, "reason_code", STRING),
            f(3, "lookup_latency_us", INT64),
            rep(4, "token_ids", UINT32),
            f(5, "adapter_id", STRING)));
    MESSAGES.put(
        "LookupPDRouteRequest",
        List.of(
            f(1, "model_id", STRING),
            f(2, "tenant_id", STRING),
            f(3, "prefix_hash", BYTES),
            f(4, "prefix_token_count", INT32),
            f(5, "pd_topology_ref", STRING),
            rep(100, "block_hashes", BYTES), // extensions: the chain input of LookupRoute
            rep(101, "block_token_counts", INT32),
            f(102, "hash_scheme", STRING),
            f(103, "adapter_id", STRING),
            f(104, "prompt_token_count", INT32)));
    MESSAGES.put(
        "LookupPDRouteResponse",
        List.of(
            f(1, "prefill_replica_id", STRING),
            f(2, "decode_replica_id", STRING),
            f(3, "transport_hint", STRING),
            f(4, "reason_code", STRING),
            f(100, "prefill_matched_tokens", INT32), // extensions: what the pair rests on
            f(101, "prefill_pool", STRING),
            f(102, "decode_pool", STRING),
            f(103, "message", STRING),
            f(104, "lookup_latency_us", INT64),
            f(105, "pd_topology", STRING)));
    MESSAGES.put(
        "PrefixEntry",
        List.of(
            f(1, "prefix_hash", BYTES),
            f(2, "token_count", INT32),
            rep(3, "block_hashes", BYTES),
            rep(4, "block_token_counts", INT32),
            enm(5, "tier", "CacheTier"),
            f(6, "adapter_id", STRING)));
    MESSAGES.put(
        "ReplicaStats",
        List.of(
            f(1, "replica_id", STRING),
            f(2, "cache_memory_bytes", INT64),
            f(3, "hit_rate", FLOAT),
            f(4, "pressure", FLOAT),
            f(5, "client_version", STRING),
            f(6, "t2_hit_tokens", INT64),
            f(7, "t2_query_tokens", INT64)));
    MESSAGES.put(
        "CacheStateUpdate",
        List.of(
            f(1, "replica_id", STRING),
            f(2, "model_id", STRING),
            f(3, "tenant_id", STRING),
            f(4, "hash_scheme", STRING),
            f(5, "timestamp_us", INT64),
            repMsg(6, "prefixes", "PrefixEntry"),
            msg(7, "stats", "ReplicaStats"),
            f(8, "adapter_id", STRING)));
    MESSAGES.put(
        "CacheSummary", List.of(f(1, "total_prefixes", INT64), f(2, "hot_prefixes", INT64)));
    MESSAGES.put(
        "GetCacheStateRequest", List.of(f(1, "model_id", STRING), f(2, "tenant_id", STRING)));
    MESSAGES.put(
        "GetCacheStateResponse",
        List.of(repMsg(1, "replicas", "ReplicaStats"), msg(2, "summary", "CacheSummary")));
    MESSAGES.put(
        "CacheEvent",
        List.of(
            enm(1, "type", "CacheEvent.Type"),
            f(2, "replica_id", STRING),
            f(3, "model_id", STRING),
            f(4, "tenant_id", STRING),
            f(5, "prefix_hash", BYTES),
            f(6, "timestamp_us", INT64),
            f(7, "adapter_id", STRING)));
    MESSAGES.put(
        "StreamEventsRequest",
        List.of(
            f(1, "model_id", STRING),
            f(2, "tenant_id", STRING),
            repEnm(3, "types", "CacheEvent.Type")));
    MESSAGES.put("StreamMetricsRequest", List.of(rep(1, "names", STRING)));
    MESSAGES.put(
        "Metric",
        List.of(
            f(1, "name", STRING),
            f(2, "type", STRING),
            stringMap(3, "labels"),
            f(4, "value", DOUBLE),
            f(5, "timestamp_us", INT64)));
    MESSAGES.put("Ack", List.of(f(1, "accepted", BOOL), f(2, "reason_code", STRING)));
  }

  /**
   * Every enum of docs/behaviour.md#messages (full name relative to the package) with its values.
   */
  private static final Map<String, Map<String, Integer>> ENUMS = new LinkedHashMap<>();

  static {
    final Map<String, Integer> tier = new LinkedHashMap<>();
    tier.put("CACHE_TIER_UNSPECIFIED", 0);
    tier.put("CACHE_TIER_T1", 1);
    tier.put("CACHE_TIER_T2", 2);
    tier.put("CACHE_TIER_T3", 3);
    ENUMS.put("CacheTier", tier);
    final Map<String, Integer> type = new LinkedHashMap<>();
    type.put("TYPE_UNSPECIFIED", 0);
    type.put("PREFIX_ADDED", 1);
    type.put("PREFIX_EVICTED", 2);
    type.put("REPLICA_UPDATED", 3);
    type.put("ALL_CLEARED", 4);
    ENUMS.put("CacheEvent.Type", type);
  }

  /** One expected RPC: request, response, client streaming, server streaming. */
  private record Rpc(
      String name, String in, String out, boolean clientStreaming, boolean serverStreaming) {}

  private static final List<Rpc> RPCS =
      List.of(
          new Rpc(
              "RenderTemplate", "RenderTemplateRequest", "RenderTemplateResponse", false, false),
          new Rpc("LookupRoute", "LookupRouteRequest", "LookupRouteResponse", false, false),
          new Rpc("LookupPDRoute", "LookupPDRouteRequest", "LookupPDRouteResponse", false, false),
          new Rpc("GetCacheState", "GetCacheStateRequest", "GetCacheStateResponse", false, false),
          new Rpc("ReportCacheState", "CacheStateUpdate", "Ack", true, false),
          new Rpc("PublishEvent", "CacheEvent", "Ack", false, false),
          new Rpc("StreamCacheEvents", "StreamEventsRequest", "CacheEvent", false, true),
          new Rpc("StreamMetrics", "StreamMetricsRequest", "Metric", false, true));

  @Test
  void fileDeclaresUpstreamPathSyntaxAndPackage() {
    assertThat(FILE.getName()).isEqualTo("inferencecache/v1alpha1/inferencecache.proto");
    assertThat(FILE.toProto().getSyntax()).isEqualTo("proto3");
    assertThat(FILE.getPackage()).isEqualTo(PKG);
    assertThat(FILE.getDependencies()).isEmpty();
  }

  @Test
  void fileDeclaresOnlyTheInferenceCacheService() {
    assertThat(FILE.getServices())
        .extracting(ServiceDescriptor::getFullName)
        .containsExactly(SERVICE);
    assertThat(InferenceCacheGrpc.SERVICE_NAME).isEqualTo(SERVICE);
  }

  @Test
  void serviceHasExactlyTheEightUpstreamRpcsInOrder() {
    assertThat(service().getMethods())
        .extracting(MethodDescriptor::getName)
        .containsExactlyElementsOf(RPCS.stream().map(Rpc::name).collect(Collectors.toList()));
  }

  static Stream<Arguments> rpcs() {
    return RPCS.stream().map(r -> Arguments.of(r.name(), r));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rpcs")
  void rpcHasUpstreamTypesAndStreamingShape(final String name, final Rpc rpc) {
    final MethodDescriptor method = service().findMethodByName(name);
    assertThat(method).as(name).isNotNull();
    assertThat(method.getInputType().getFullName()).as(name).isEqualTo(PKG + "." + rpc.in());
    assertThat(method.getOutputType().getFullName()).as(name).isEqualTo(PKG + "." + rpc.out());
    assertThat(method.isClientStreaming())
        .as(name + " client streaming")
        .isEqualTo(rpc.clientStreaming());
    assertThat(method.isServerStreaming())
        .as(name + " server streaming")
        .isEqualTo(rpc.serverStreaming());
  }

  @Test
  void generatedStubsUseUpstreamFullMethodNamesAndCallTypes() {
    final Map<String, io.grpc.MethodDescriptor<?, ?>> stubs = new LinkedHashMap<>();
    stubs.put("RenderTemplate", InferenceCacheGrpc.getRenderTemplateMethod());
    stubs.put("LookupRoute", InferenceCacheGrpc.getLookupRouteMethod());
    stubs.put("LookupPDRoute", InferenceCacheGrpc.getLookupPDRouteMethod());
    stubs.put("GetCacheState", InferenceCacheGrpc.getGetCacheStateMethod());
    stubs.put("ReportCacheState", InferenceCacheGrpc.getReportCacheStateMethod());
    stubs.put("PublishEvent", InferenceCacheGrpc.getPublishEventMethod());
    stubs.put("StreamCacheEvents", InferenceCacheGrpc.getStreamCacheEventsMethod());
    stubs.put("StreamMetrics", InferenceCacheGrpc.getStreamMetricsMethod());
    assertThat(stubs.keySet())
        .containsExactlyElementsOf(RPCS.stream().map(Rpc::name).collect(Collectors.toList()));

    for (final Rpc rpc : RPCS) {
      final io.grpc.MethodDescriptor<?, ?> stub = stubs.get(rpc.name());
      assertThat(stub.getFullMethodName())
          .isEqualTo("inferencecache.v1alpha1.InferenceCache/" + rpc.name());
      assertThat(stub.getServiceName()).isEqualTo(SERVICE);
      assertThat(stub.getType()).as(rpc.name()).isEqualTo(callType(rpc));
    }
    assertThat(InferenceCacheGrpc.getServiceDescriptor().getMethods())
        .extracting(io.grpc.MethodDescriptor::getFullMethodName)
        .containsExactlyInAnyOrderElementsOf(
            RPCS.stream().map(r -> SERVICE + "/" + r.name()).collect(Collectors.toList()));
  }

  @Test
  void fileDeclaresExactlyTheUpstreamTopLevelMessagesAndEnums() {
    assertThat(FILE.getMessageTypes())
        .extracting(Descriptor::getName)
        .containsExactlyElementsOf(MESSAGES.keySet());
    assertThat(FILE.getEnumTypes())
        .extracting(EnumDescriptor::getName)
        .containsExactly("CacheTier");
  }

  static Stream<Arguments> messages() {
    return MESSAGES.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messages")
  void everyFieldHasUpstreamNumberNameTypeAndLabel(final String message, final List<F> expected) {
    final Descriptor descriptor = FILE.findMessageTypeByName(message);
    assertThat(descriptor).as(message).isNotNull();
    assertThat(descriptor.getFullName()).isEqualTo(PKG + "." + message);
    assertThat(descriptor.getFields())
        .as("%s field numbers", message)
        .extracting(FieldDescriptor::getNumber)
        .containsExactlyElementsOf(expected.stream().map(F::number).collect(Collectors.toList()));
    assertThat(descriptor.getOneofs()).as("%s oneofs (incl. proto3 optional)", message).isEmpty();

    for (final F want : expected) {
      final FieldDescriptor got = descriptor.findFieldByNumber(want.number());
      final String where = message + "." + want.name() + " = " + want.number();
      assertThat(got.getName()).as(where).isEqualTo(want.name());
      assertThat(got.getType()).as(where).isEqualTo(want.type());
      assertThat(got.isRepeated()).as(where + " repeated").isEqualTo(want.repeated());
      assertThat(got.isMapField()).as(where + " map").isEqualTo(want.isMap());
      assertThat(got.toProto().getProto3Optional()).as(where + " proto3 optional").isFalse();
      if (want.isMap()) {
        final Descriptor entry = got.getMessageType();
        assertThat(entry.findFieldByNumber(1).getName()).isEqualTo("key");
        assertThat(entry.findFieldByNumber(1).getType()).as(where + " key").isEqualTo(STRING);
        assertThat(entry.findFieldByNumber(2).getName()).isEqualTo("value");
        assertThat(entry.findFieldByNumber(2).getType()).as(where + " value").isEqualTo(STRING);
      } else if (want.type() == MESSAGE) {
        assertThat(got.getMessageType().getFullName()).as(where).isEqualTo(want.ref());
      } else if (want.type() == ENUM) {
        assertThat(got.getEnumType().getFullName()).as(where).isEqualTo(want.ref());
      }
      if (want.repeated() && got.isPackable()) {
        // proto3 default: repeated numeric and enum fields are packed.
        assertThat(got.isPacked()).as(where + " packed").isTrue();
      }
    }
  }

  @Test
  void onlyCacheEventNestsAnEnumAndOnlyMapsNestMessages() {
    for (final Descriptor message : FILE.getMessageTypes()) {
      final String name = message.getName();
      assertThat(message.getEnumTypes())
          .as(name)
          .extracting(EnumDescriptor::getName)
          .containsExactlyElementsOf(name.equals("CacheEvent") ? List.of("Type") : List.of());
      assertThat(message.getNestedTypes())
          .as(name)
          .allSatisfy(nested -> assertThat(nested.getOptions().getMapEntry()).isTrue());
    }
  }

  static Stream<Arguments> enums() {
    return ENUMS.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("enums")
  void everyEnumValueHasUpstreamNumber(final String name, final Map<String, Integer> expected) {
    final EnumDescriptor descriptor = enumByRelativeName(name);
    assertThat(descriptor.getFullName()).isEqualTo(PKG + "." + name);
    assertThat(descriptor.getValues())
        .extracting(EnumValueDescriptor::getName)
        .containsExactlyElementsOf(expected.keySet());
    for (final Map.Entry<String, Integer> value : expected.entrySet()) {
      assertThat(descriptor.findValueByName(value.getKey()).getNumber())
          .as(name + "." + value.getKey())
          .isEqualTo(value.getValue());
    }
  }

  @Test
  void repeatedIntegersAreEncodedPackedOnTheWire() {
    // field 9 (token_ids), wire type 2 (length-delimited): tag 0x4a, length 3, varints 1 2 3.
    final byte[] tokenIds =
        LookupRouteRequest.newBuilder()
            .addTokenIds(1)
            .addTokenIds(2)
            .addTokenIds(3)
            .build()
            .toByteArray();
    assertThat(tokenIds).containsExactly(0x4a, 0x03, 0x01, 0x02, 0x03);
    // field 8 (block_token_counts): tag 0x42.
    final byte[] counts =
        LookupRouteRequest.newBuilder()
            .addBlockTokenCounts(16)
            .addBlockTokenCounts(16)
            .build()
            .toByteArray();
    assertThat(counts).containsExactly(0x42, 0x02, 0x10, 0x10);
  }

  @Test
  void uint32TokenIdsKeepTheFullUnsignedRangeOnTheWire() {
    // 0xFFFFFFFF as uint32 is a 5-byte varint (an int32 would sign-extend to 10 bytes).
    final byte[] bytes = LookupRouteRequest.newBuilder().addTokenIds(-1).build().toByteArray();
    assertThat(bytes).containsExactly(0x4a, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f);
  }

  private static ServiceDescriptor service() {
    return FILE.findServiceByName("InferenceCache");
  }

  private static MethodType callType(final Rpc rpc) {
    if (rpc.clientStreaming() && rpc.serverStreaming()) {
      return MethodType.BIDI_STREAMING;
    }
    if (rpc.clientStreaming()) {
      return MethodType.CLIENT_STREAMING;
    }
    return rpc.serverStreaming() ? MethodType.SERVER_STREAMING : MethodType.UNARY;
  }

  private static EnumDescriptor enumByRelativeName(final String name) {
    final int dot = name.indexOf('.');
    if (dot < 0) {
      return FILE.findEnumTypeByName(name);
    }
    return FILE.findMessageTypeByName(name.substring(0, dot))
        .findEnumTypeByName(name.substring(dot + 1));
  }

  @Test
  void extensionFieldsAreNumberedClearOfUpstream() {
    for (final Map.Entry<String, List<F>> message : MESSAGES.entrySet()) {
      for (final F field : message.getValue()) {
        if (field.name().equals("max_replicas")
            || PD_EXTENSIONS.contains(message.getKey() + "." + field.name())) {
          assertThat(field.number())
              .as(message.getKey() + "." + field.name())
              .isGreaterThanOrEqualTo(EXTENSION_FIELDS);
        } else {
          assertThat(field.number())
              .as(message.getKey() + "." + field.name())
              .isLessThan(EXTENSION_FIELDS);
        }
      }
    }
  }
}
