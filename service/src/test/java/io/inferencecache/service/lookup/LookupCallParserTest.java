package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.internal.ReadableBuffers;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.SLO;
import io.inferencecache.service.server.Fixtures;
import io.inferencecache.service.server.ServiceHarness;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The zero-copy LookupRouteRequest parser ({@link LookupCall#parse}) against the generated protobuf
 * parser + {@link ProtoLookupCodec#fill}: same {@link RouteRequest} for every request protobuf
 * accepts and the parser accepts, and never an exception (malformed input is answered NO_HINT with
 * status OK through the service).
 */
@Timeout(120)
class LookupCallParserTest {
  static final int MAX = LookupRouter.MAX_PROMPT_TEXT_BYTES;
  static ServiceHarness h;

  @BeforeAll
  static void open() throws IOException {
    h = ServiceHarness.defaults(true);
  }

  @AfterAll
  static void close() {
    h.close();
  }

  // ---- helpers

  static RouteRequest viaCodec(final LookupRouteRequest r) {
    final RouteRequest in = new RouteRequest();
    ProtoLookupCodec.fill(r, in);
    return in;
  }

  static LookupCall parse(final byte[] bytes) {
    final LookupCall c = new LookupCall(null).resetCall();
    final boolean ok = c.parse(new UnsafeBuffer(bytes), 0, bytes.length, MAX);
    assertThat(ok).isEqualTo(!c.malformed);
    return c;
  }

  static List<byte[]> hashes(final LookupRequest q) {
    final List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < q.blockHashCount(); i++) {
      final byte[] b = new byte[q.blockHashLength(i)];
      q.copyBlockHash(i, b, 0);
      out.add(b);
    }
    return out;
  }

  static int[] counts(final LookupRequest q) {
    final int[] c = new int[q.blockTokenCountCount()];
    for (int i = 0; i < c.length; i++) {
      c[i] = q.blockTokenCount(i);
    }
    return c;
  }

  /** Field-by-field equality of two parsed inputs, via the engine request's accessors. */
  static void assertSameInput(final RouteRequest actual, final RouteRequest expected) {
    final LookupRequest a = actual.request();
    final LookupRequest e = expected.request();
    assertThat(a.tenant().toString()).as("tenant").isEqualTo(e.tenant().toString());
    assertThat(a.model().toString()).as("model").isEqualTo(e.model().toString());
    assertThat(a.hashScheme().toString()).as("scheme").isEqualTo(e.hashScheme().toString());
    assertThat(a.adapter().toString()).as("adapter").isEqualTo(e.adapter().toString());
    assertThat(hashes(a)).as("block hashes").containsExactlyElementsOf(hashes(e));
    assertThat(counts(a)).as("block token counts").containsExactly(counts(e));
    assertThat(Arrays.copyOf(a.exactArray(), a.exactLength()))
        .as("prefix hash")
        .isEqualTo(Arrays.copyOf(e.exactArray(), e.exactLength()));
    assertThat(a.exactTokenCount()).as("prefix token count").isEqualTo(e.exactTokenCount());
    assertThat(a.ttftMs()).as("ttft").isEqualTo(e.ttftMs());
    assertThat(a.maxReplicas()).as("max replicas").isEqualTo(e.maxReplicas());
    assertThat(RouteRequestAccess.tokenIds(actual))
        .as("token ids")
        .containsExactly(RouteRequestAccess.tokenIds(expected));
    assertThat(RouteRequestAccess.promptTooLong(actual))
        .as("prompt too long")
        .isEqualTo(RouteRequestAccess.promptTooLong(expected));
    assertThat(RouteRequestAccess.promptLength(actual))
        .as("prompt length")
        .isEqualTo(RouteRequestAccess.promptLength(expected));
    assertThat(RouteRequestAccess.prompt(actual))
        .as("prompt")
        .isEqualTo(RouteRequestAccess.prompt(expected));
  }

  /** Zero-copy parse of {@code bytes} equals protobuf parse + fill of the same bytes. */
  static void assertParsesLikeProtobuf(final byte[] bytes) throws Exception {
    final LookupRouteRequest proto = LookupRouteRequest.parseFrom(bytes);
    final LookupCall c = parse(bytes);
    assertThat(c.malformed).as("zero-copy rejected bytes protobuf accepts").isFalse();
    assertSameInput(c.input, viaCodec(proto));
  }

  static LookupRouteRequest golden() {
    final LookupRouteRequest.Builder b =
        LookupRouteRequest.newBuilder()
            .setModelId("llama-3.1-8b")
            .setTenantId("team-ä")
            .setPrefixHash(ByteString.copyFrom(new byte[] {1, 2, 3, (byte) 0xFF}))
            .setPrefixTokenCount(-7)
            .setHashScheme("vllm")
            .setSlo(SLO.newBuilder().setTtftMs(150).setTbtMs(30))
            .setPromptText("Hello, wörld ✓ 🚀")
            .setAdapterId("lora-1")
            .setMaxReplicas(7);
    for (int i = 0; i < 40; i++) {
      b.addBlockHashes(Fixtures.hash(1, i)).addBlockTokenCounts(i == 3 ? -16 : 16);
    }
    b.addTokenIds(0).addTokenIds(1).addTokenIds(127).addTokenIds(128).addTokenIds(0xFFFFFFFF);
    b.addTokenIds(Integer.MIN_VALUE).addTokenIds(300_000);
    return b.build();
  }

  static MethodDescriptor<byte[], LookupRouteResponse> rawMethod() {
    return InferenceCacheGrpc.getLookupRouteMethod().toBuilder(
            new MethodDescriptor.Marshaller<byte[]>() {
              @Override
              public InputStream stream(final byte[] value) {
                return new ByteArrayInputStream(value);
              }

              @Override
              public byte[] parse(final InputStream stream) {
                throw new UnsupportedOperationException();
              }
            },
            ProtoUtils.marshaller(LookupRouteResponse.getDefaultInstance()))
        .build();
  }

  static final MethodDescriptor<byte[], LookupRouteResponse> RAW = rawMethod();

  static LookupRouteResponse send(final byte[] bytes) {
    return ClientCalls.blockingUnaryCall(h.channel, RAW, CallOptions.DEFAULT, bytes);
  }

  static byte[] encode(final Writer w) throws IOException {
    final ByteArrayOutputStream bos = new ByteArrayOutputStream();
    final CodedOutputStream out = CodedOutputStream.newInstance(bos);
    w.write(out);
    out.flush();
    return bos.toByteArray();
  }

  interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  static byte[] concat(final byte[]... parts) {
    final ByteArrayOutputStream bos = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      bos.write(p, 0, p.length);
    }
    return bos.toByteArray();
  }

  // ---- golden requests

  @Test
  void goldenFullRequestParsesLikeProtobuf() throws Exception {
    assertParsesLikeProtobuf(golden().toByteArray());
  }

  @Test
  void emptyRequestParsesLikeProtobuf() throws Exception {
    assertParsesLikeProtobuf(new byte[0]);
  }

  @Test
  void requestWithOnlyKeysAndChainParsesLikeProtobuf() throws Exception {
    assertParsesLikeProtobuf(
        Fixtures.chainRequest(Fixtures.hashes(3, 1000), 16).build().toByteArray());
  }

  @Test
  void oversizedPromptIsFlaggedLikeProtobufPath() throws Exception {
    final byte[] bytes =
        Fixtures.request().setPromptText("x".repeat(MAX + 1)).build().toByteArray();
    assertParsesLikeProtobuf(bytes);
    assertThat(RouteRequestAccess.promptTooLong(parse(bytes).input)).isTrue();
  }

  @Test
  void transportByteBufferPathParsesLikeByteArrayPath() throws Exception {
    final byte[] bytes = golden().toByteArray();
    final ZeroCopyLookupRoute route = h.service.zeroCopy();
    final ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 10);
    direct.position(5);
    direct.put(bytes);
    direct.position(5);
    direct.limit(5 + bytes.length);
    final InputStream fromTransport =
        ReadableBuffers.openStream(ReadableBuffers.wrap(direct.slice()), true);
    final LookupCall viaBuffer = route.parse(fromTransport);
    final LookupCall viaCopy = route.parse(new ByteArrayInputStream(bytes));
    assertThat(viaBuffer.malformed).isFalse();
    assertThat(viaCopy.malformed).isFalse();
    assertSameInput(viaBuffer.input, viaCodec(golden()));
    assertSameInput(viaCopy.input, viaCodec(golden()));
  }

  // ---- encodings protobuf accepts

  @Test
  void unpackedRepeatedFieldsParseLikePacked() throws Exception {
    final byte[] unpacked =
        encode(
            out -> {
              out.writeString(1, "m");
              out.writeString(2, "t");
              out.writeString(5, "vllm");
              for (int i = 0; i < 3; i++) {
                out.writeBytes(7, Fixtures.hash(2, i));
                out.writeInt32(8, 16 + i);
              }
              out.writeUInt32(9, 5);
              out.writeUInt32(9, 0xFFFFFFFF);
              out.writeInt32(8, -1);
            });
    assertParsesLikeProtobuf(unpacked);
    final LookupCall c = parse(unpacked);
    assertThat(counts(c.input.request())).containsExactly(16, 17, 18, -1);
    assertThat(RouteRequestAccess.tokenIds(c.input)).containsExactly(5, -1);
  }

  @Test
  void packedAndUnpackedElementsOfOneFieldAreAppendedInOrder() throws Exception {
    final byte[] mixed =
        concat(
            LookupRouteRequest.newBuilder().addTokenIds(1).addTokenIds(2).build().toByteArray(),
            encode(out -> out.writeUInt32(9, 3)),
            LookupRouteRequest.newBuilder().addTokenIds(4).build().toByteArray());
    assertParsesLikeProtobuf(mixed);
    assertThat(RouteRequestAccess.tokenIds(parse(mixed).input)).containsExactly(1, 2, 3, 4);
  }

  @Test
  void unknownFieldsOfEveryWireTypeAreSkipped() throws Exception {
    final byte[] bytes =
        concat(
            encode(
                out -> {
                  out.writeUInt64(12, Long.MAX_VALUE);
                  out.writeFixed64(13, 42);
                  out.writeBytes(14, ByteString.copyFromUtf8("unknown payload"));
                  out.writeFixed32(15, 7);
                  out.writeUInt64(1000, 1);
                  out.writeBytes(
                      6,
                      ByteString.copyFrom(
                          encode(
                              slo -> {
                                slo.writeInt32(1, 120);
                                slo.writeString(9, "unknown in SLO");
                                slo.writeFixed64(10, 1);
                              })));
                }),
            golden().toByteArray(),
            encode(out -> out.writeBytes(536_870_911, ByteString.copyFromUtf8("max field"))));
    assertParsesLikeProtobuf(bytes);
  }

  @Test
  void unknownFieldsWithTagsAboveIntMaxAreSkipped() throws Exception {
    // Field numbers from 2^28 up to the maximum 2^29-1 encode tags >= 2^31 (5-byte varints).
    final byte[] bytes =
        concat(
            golden().toByteArray(),
            encode(
                out -> {
                  out.writeUInt64(1 << 28, 5);
                  out.writeBytes(536_870_911, ByteString.copyFromUtf8("max field number"));
                }));
    assertParsesLikeProtobuf(bytes);
  }

  @Test
  void duplicatedScalarFieldsLastOneWins() throws Exception {
    final LookupRouteRequest first = golden();
    final LookupRouteRequest second =
        LookupRouteRequest.newBuilder()
            .setModelId("m2")
            .setTenantId("t2")
            .setHashScheme("s2")
            .setAdapterId("a2")
            .setPrefixHash(ByteString.copyFromUtf8("second"))
            .setPrefixTokenCount(99)
            .setPromptText("second prompt")
            .setSlo(SLO.newBuilder().setTbtMs(5))
            .addBlockHashes(Fixtures.hash(9, 9))
            .addBlockTokenCounts(1)
            .build();
    final byte[] bytes = concat(first.toByteArray(), second.toByteArray());
    assertParsesLikeProtobuf(bytes);
    final LookupRequest q = parse(bytes).input.request();
    assertThat(q.model().toString()).isEqualTo("m2");
    assertThat(q.exactTokenCount()).isEqualTo(99);
    assertThat(q.ttftMs()).as("SLO messages merge: ttft of the first kept").isEqualTo(150);
    assertThat(q.blockHashCount()).isEqualTo(41);
  }

  @Test
  void explicitZeroValuedScalarsOverrideEarlierValues() throws Exception {
    final byte[] bytes =
        concat(
            golden().toByteArray(),
            encode(
                out -> {
                  out.writeInt32(4, 0);
                  out.writeString(1, "");
                  out.writeBytes(3, ByteString.EMPTY);
                }));
    assertParsesLikeProtobuf(bytes);
  }

  // ---- malformed bytes: never throw, NO_HINT with status OK

  static final byte[][] MALFORMED = {
    {0x08}, // field 4? no: field 1 varint tag without value (and wrong wire type for a string)
    {0x20, (byte) 0x80}, // truncated varint (prefix_token_count)
    {
      0x20,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      (byte) 0xFF,
      0x01
    }, // 11-byte varint
    {0x0A, 0x05, 'a', 'b'}, // length overruns the message
    {0x3A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}, // huge block hash length
    {0x0B, 0x0C}, // group wire types on a known field
    {0x7B, 0x7C}, // group wire types on an unknown field (15)
    {0x0E}, // wire type 6
    {0x0F}, // wire type 7
    {0x00}, // tag 0
    {0x02, 0x00}, // field number 0
    {0x42, 0x02, (byte) 0x80, (byte) 0x80}, // packed counts with truncated varint inside
    {0x4A, 0x01, (byte) 0x80, 0x01}, // packed token id varint crossing the packed boundary
    {0x32, 0x02, 0x08}, // SLO with truncated ttft
    {0x32, 0x01, 0x0B}, // SLO with a group
    {0x1A, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01}, // length > int
  };

  @Test
  void malformedBytesNeverThrowAndAreMarkedMalformed() {
    for (byte[] m : MALFORMED) {
      assertThatCode(() -> parse(m)).as(Arrays.toString(m)).doesNotThrowAnyException();
      assertThat(parse(m).malformed).as(Arrays.toString(m)).isTrue();
    }
  }

  @Test
  void malformedBytesAreAnsweredNoHintWithStatusOk() throws Exception {
    h.report(Fixtures.chainUpdate("r-a", Fixtures.hashes(1, 8), 16));
    for (byte[] m : MALFORMED) {
      final byte[] withValidPrefix =
          concat(Fixtures.chainRequest(Fixtures.hashes(1, 8), 16).build().toByteArray(), m);
      for (byte[] b : List.of(m, withValidPrefix)) {
        final LookupRouteResponse r = send(b);
        assertThat(r.getReasonCode()).as(Arrays.toString(b)).isEqualTo("NO_HINT");
        assertThat(r.getReplicaScoresCount()).isZero();
      }
    }
    // The same valid request without the trailing garbage is a match: the garbage made the miss.
    assertThat(
            send(Fixtures.chainRequest(Fixtures.hashes(1, 8), 16).build().toByteArray())
                .getReasonCode())
        .isEqualTo("PREFIX_MATCH");
  }

  /** Checks one arbitrary byte array: no exception; equal to protobuf when both accept it. */
  static boolean check(final byte[] b) {
    final LookupCall[] c = new LookupCall[1];
    assertThatCode(() -> c[0] = parse(b)).as(Arrays.toString(b)).doesNotThrowAnyException();
    LookupRouteRequest proto;
    try {
      proto = LookupRouteRequest.parseFrom(b);
    } catch (InvalidProtocolBufferException e) {
      proto = null;
    }
    if (proto != null && !c[0].malformed) {
      assertSameInput(c[0].input, viaCodec(proto));
      return true;
    }
    return false;
  }

  @Test
  void tenThousandRandomByteArraysNeverThrow() {
    final Random rnd = new Random(20240611L);
    int agreed = 0;
    for (int i = 0; i < 10_000; i++) {
      final byte[] b = new byte[rnd.nextInt(80)];
      rnd.nextBytes(b);
      if (check(b)) {
        agreed++;
      }
    }
    assertThat(agreed)
        .as("some random arrays are valid requests (empty one at least)")
        .isPositive();
  }

  static byte[] mutate(final byte[] valid, final Random rnd) {
    final byte[] b = valid.clone();
    switch (rnd.nextInt(5)) {
      case 0 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
      case 1 -> {
        return Arrays.copyOf(b, rnd.nextInt(b.length));
      }
      case 2 -> {
        final int at = rnd.nextInt(b.length);
        final byte[] out = new byte[b.length + 1];
        System.arraycopy(b, 0, out, 0, at);
        out[at] = (byte) rnd.nextInt(256);
        System.arraycopy(b, at, out, at + 1, b.length - at);
        return out;
      }
      case 3 -> {
        for (int k = 0; k < 4; k++) {
          b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
        }
      }
      default -> {
        final int from = rnd.nextInt(b.length);
        final int to = from + rnd.nextInt(b.length - from);
        return concat(b, Arrays.copyOfRange(b, from, to));
      }
    }
    return b;
  }

  @Test
  void tenThousandMutationsOfValidRequestsNeverThrow() {
    final Random rnd = new Random(7L);
    final byte[][] seeds = {
      golden().toByteArray(),
      Fixtures.chainRequest(Fixtures.hashes(1, 4), 16)
          .setPrefixHash(Fixtures.hash(2, 0))
          .build()
          .toByteArray(),
      Fixtures.request()
          .setPromptText("prompt ✓")
          .addTokenIds(1)
          .addTokenIds(300)
          .build()
          .toByteArray(),
    };
    int agreed = 0;
    for (int i = 0; i < 10_000; i++) {
      if (check(mutate(seeds[i % seeds.length], rnd))) {
        agreed++;
      }
    }
    assertThat(agreed).isPositive();
  }

  @Test
  void randomAndMutatedBytesAreAnsweredWithStatusOkThroughTheService() {
    // Whatever the bytes parse to, the call completes with status OK and a reason code.
    final Random rnd = new Random(99L);
    final byte[] valid = golden().toByteArray();
    for (int i = 0; i < 600; i++) {
      final byte[] b;
      if (i % 2 == 0) {
        b = new byte[rnd.nextInt(64)];
        rnd.nextBytes(b);
      } else {
        b = mutate(valid, rnd);
      }
      final LookupRouteResponse r = send(b);
      assertThat(r.getReasonCode()).isNotEmpty();
    }
  }

  @Test
  void invalidUtf8InStringsIsAcceptedWithoutThrowing() {
    final byte[] bytes = {0x0A, 0x02, (byte) 0xC3, 0x28, 0x52, 0x01, (byte) 0xFF};
    assertThatCode(() -> parse(bytes)).doesNotThrowAnyException();
    assertThat(send(bytes).getReasonCode()).isEqualTo("NO_HINT");
  }

  /**
   * Regression (found by LookupRouteRequestFuzzTest): adapter_id is echoed into the response; with
   * invalid UTF-8 it made the response unparseable for protobuf clients (INTERNAL instead of a
   * fail-open answer). Invalid UTF-8 in an identifier is now a malformed request: NO_HINT, no echo.
   */
  @Test
  void invalidUtf8AdapterIsMalformedAndNeverEchoed() throws Exception {
    final byte[] bytes =
        concat(
            Fixtures.chainRequest(Fixtures.hashes(1, 8), 16).build().toByteArray(),
            encode(
                out ->
                    out.writeBytes(11, ByteString.copyFrom(new byte[] {'l', (byte) 0x95, 'x'}))));
    final LookupCall c = parse(bytes);
    assertThat(c.malformed).isTrue();
    final LookupRouteResponse r = send(bytes);
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getAdapterId()).isEmpty();
    for (final int field : new int[] {1, 2, 5}) {
      final byte[] bad =
          concat(
              Fixtures.request().build().toByteArray(),
              encode(
                  out ->
                      out.writeBytes(field, ByteString.copyFrom(new byte[] {(byte) 0xC3, 0x28}))));
      assertThat(parse(bad).malformed).as("field %d", field).isTrue();
    }
  }
}
