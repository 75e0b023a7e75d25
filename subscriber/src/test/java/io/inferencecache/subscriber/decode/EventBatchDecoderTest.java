package io.inferencecache.subscriber.decode;

import static io.inferencecache.subscriber.Msgpack.batch;
import static io.inferencecache.subscriber.Msgpack.pack;
import static io.inferencecache.subscriber.Msgpack.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.inferencecache.subscriber.Msgpack;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventBatchDecoderTest {
  private final EventBatchDecoder decoder = new EventBatchDecoder();

  private static String hex(final byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static List<String> hexes(final List<byte[]> list) {
    final List<String> out = new ArrayList<>();
    for (final byte[] b : list) {
      out.add(hex(b));
    }
    return out;
  }

  @Test
  void decodesVllmTupleFormBatch() throws Exception {
    final byte[] payload =
        batch(
            1_700_000_000.25,
            Msgpack.storedTuple(new long[] {0xE000, 0xE001}, null, tokens(1, 32), 16, null, true),
            Msgpack.storedTuple(new long[] {0xE002}, 0xE001L, tokens(33, 16), 16, 7L, true),
            Msgpack.removedTuple(0xE000),
            Msgpack.clearedTuple());

    final EventBatch batch = decoder.decode(payload);

    assertThat(batch.timestampSeconds()).isEqualTo(1_700_000_000.25);
    assertThat(batch.timestampMicros()).isEqualTo(1_700_000_000_250_000L);
    assertThat(batch.events()).hasSize(4);
    final KvEvent.BlockStored first = (KvEvent.BlockStored) batch.events().get(0);
    assertThat(hexes(first.blockHashes())).containsExactly("000000000000e000", "000000000000e001");
    assertThat(first.parentBlockHash()).isNull();
    assertThat(first.tokenIds()).containsExactly(tokens(1, 32));
    assertThat(first.blockSize()).isEqualTo(16);
    assertThat(first.loraId()).isEmpty();
    final KvEvent.BlockStored second = (KvEvent.BlockStored) batch.events().get(1);
    assertThat(hex(second.parentBlockHash())).isEqualTo("000000000000e001");
    assertThat(second.loraId()).hasValue(7L);
    final KvEvent.BlockRemoved removed = (KvEvent.BlockRemoved) batch.events().get(2);
    assertThat(hexes(removed.blockHashes())).containsExactly("000000000000e000");
    assertThat(batch.events().get(3)).isInstanceOf(KvEvent.AllBlocksCleared.class);
  }

  @Test
  void decodesSglangBatchWithTrailingRankAndFiveFieldTuple() throws Exception {
    final byte[] payload =
        pack(
            p -> {
              p.packArrayHeader(3).packDouble(1_779_901_681.5).packArrayHeader(2);
              Msgpack.storedTuple(new long[] {10, 11}, null, tokens(0, 128), 64, null, true)
                  .write(p);
              Msgpack.storedTuple(new long[] {12}, 11L, tokens(128, 64), 64, null, false).write(p);
              p.packInt(3); // attn_dp_rank
            });

    final EventBatch batch = decoder.decode(payload);

    assertThat(batch.timestampSeconds()).isEqualTo(1_779_901_681.5);
    assertThat(batch.events()).hasSize(2);
    final KvEvent.BlockStored five = (KvEvent.BlockStored) batch.events().get(1);
    assertThat(five.loraId()).isEmpty();
    assertThat(five.blockSize()).isEqualTo(64);
    assertThat(five.tokenIds()).hasSize(64);
  }

  @Test
  void decodesMapFormEventsInAnyKeyOrder() throws Exception {
    final byte[] payload =
        pack(
            p -> {
              p.packArrayHeader(2).packDouble(5.0).packArrayHeader(4);
              p.packMapHeader(7);
              p.packString("token_ids").packArrayHeader(16);
              for (int t = 0; t < 16; t++) {
                p.packInt(t);
              }
              p.packString("medium").packString("GPU"); // unknown key: skipped
              p.packString("block_size").packInt(16);
              p.packString("type").packString("BlockStored");
              p.packString("lora_id").packInt(2);
              p.packString("parent_block_hash").packBinaryHeader(3);
              p.writePayload(new byte[] {1, 2, 3});
              p.packString("block_hashes").packArrayHeader(1).packString("h0");
              p.packMapHeader(2);
              p.packString("block_hashes").packArrayHeader(1).packLong(-1L);
              p.packString("type").packString("BlockRemoved");
              p.packMapHeader(1).packString("type").packString("AllBlocksCleared");
              p.packMapHeader(2).packString("type").packString("FutureEvent");
              p.packString("payload").packMapHeader(1).packInt(1).packNil();
            });

    final EventBatch batch = decoder.decode(payload);

    assertThat(batch.events()).hasSize(3);
    final KvEvent.BlockStored stored = (KvEvent.BlockStored) batch.events().get(0);
    assertThat(stored.blockHashes().get(0)).isEqualTo("h0".getBytes(StandardCharsets.UTF_8));
    assertThat(stored.parentBlockHash()).containsExactly(1, 2, 3);
    assertThat(stored.tokenIds()).containsExactly(tokens(0, 16));
    assertThat(stored.blockSize()).isEqualTo(16);
    assertThat(stored.loraId()).isEqualTo(OptionalLong.of(2));
    final KvEvent.BlockRemoved removed = (KvEvent.BlockRemoved) batch.events().get(1);
    assertThat(hex(removed.blockHashes().get(0))).isEqualTo("ffffffffffffffff");
    assertThat(batch.events().get(2)).isInstanceOf(KvEvent.AllBlocksCleared.class);
  }

  @Test
  void mapFormBlockStoredWithoutOptionalKeys() throws Exception {
    final byte[] payload =
        pack(
            p -> {
              p.packArrayHeader(2).packDouble(0).packArrayHeader(1).packMapHeader(4);
              p.packString("type").packString("BlockStored");
              p.packString("block_hashes").packArrayHeader(1).packInt(9);
              p.packString("token_ids").packArrayHeader(2).packInt(1).packInt(2);
              p.packString("block_size").packInt(2);
            });

    final KvEvent.BlockStored stored =
        (KvEvent.BlockStored) decoder.decode(payload).events().get(0);

    assertThat(stored.parentBlockHash()).isNull();
    assertThat(stored.loraId()).isEmpty();
  }

  @Test
  void skipsUnknownTupleTagsWithNestedValues() throws Exception {
    final byte[] payload =
        batch(
            1.0,
            p -> {
              p.packArrayHeader(3).packString("BlockPinned");
              p.packMapHeader(1).packString("x").packArrayHeader(2).packNil().packFloat(1.5f);
              p.packExtensionTypeHeader((byte) 1, 2);
              p.writePayload(new byte[] {9, 9});
            },
            Msgpack.clearedTuple());

    assertThat(decoder.decode(payload).events())
        .singleElement()
        .isInstanceOf(KvEvent.AllBlocksCleared.class);
  }

  @Test
  void normalisesHashElementTypes() throws Exception {
    final byte[] payload =
        batch(
            0,
            p -> {
              p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(7);
              p.packLong(0xE000L);
              p.packLong(-2L); // negative int64: reinterpreted as uint64
              p.packBigInteger(new BigInteger("18446744073709551615")); // 2^64-1
              p.packBigInteger(BigInteger.ONE.shiftLeft(63)); // 2^63, beyond Long.MAX
              p.packBinaryHeader(2);
              p.writePayload(new byte[] {(byte) 0xAB, 0x01});
              p.packString("é1"); // str: its UTF-8 bytes
              p.writePayload(new byte[] {(byte) 0xcf, 0, 0, 0, 0, 0, 0, 0, 5}); // uint64 5
            });

    final KvEvent.BlockRemoved removed =
        (KvEvent.BlockRemoved) decoder.decode(payload).events().get(0);

    assertThat(hexes(removed.blockHashes()))
        .containsExactly(
            "000000000000e000",
            "fffffffffffffffe",
            "ffffffffffffffff",
            "8000000000000000",
            "ab01",
            "c3a931",
            "0000000000000005");
  }

  @Test
  void acceptsTokenIdBoundsAndUint64EncodedSmallValues() throws Exception {
    final byte[] payload =
        batch(
            0,
            p -> {
              p.packArrayHeader(6).packString("BlockStored");
              p.packArrayHeader(1).packInt(1).packNil();
              p.packArrayHeader(3).packLong(0).packLong(0xFFFF_FFFFL);
              p.writePayload(new byte[] {(byte) 0xcf, 0, 0, 0, 0, 0, 0, 0, 7});
              p.writePayload(new byte[] {(byte) 0xcf, 0, 0, 0, 0, 0, 0, 0, 3}); // block size
              p.writePayload(new byte[] {(byte) 0xcf, 0, 0, 0, 0, 0, 0, 0, 4}); // lora
            });

    final KvEvent.BlockStored stored =
        (KvEvent.BlockStored) decoder.decode(payload).events().get(0);

    assertThat(stored.tokenIds()).containsExactly(0, -1, 7);
    assertThat(stored.blockSize()).isEqualTo(3);
    assertThat(stored.loraId()).hasValue(4);
  }

  @Test
  void nilTimestampEventsHashesAndTokensDecodeAsEmpty() throws Exception {
    assertThat(decoder.decode(pack(p -> p.packArrayHeader(2).packNil().packNil())))
        .isEqualTo(new EventBatch(0.0, List.of()));
    final byte[] payload =
        pack(
            p -> {
              p.packArrayHeader(2).packInt(12).packArrayHeader(1);
              p.packArrayHeader(5).packString("BlockStored").packNil().packNil().packNil();
              p.packInt(16);
            });
    final EventBatch batch = decoder.decode(payload);
    assertThat(batch.timestampSeconds()).isEqualTo(12.0);
    final KvEvent.BlockStored stored = (KvEvent.BlockStored) batch.events().get(0);
    assertThat(stored.blockHashes()).isEmpty();
    assertThat(stored.tokenIds()).isEmpty();
  }

  @Test
  void timestampMicrosClampsNonPositiveAndNonFinite() {
    assertThat(EventBatch.toMicros(1.5)).isEqualTo(1_500_000L);
    assertThat(EventBatch.toMicros(0)).isZero();
    assertThat(EventBatch.toMicros(-3)).isZero();
    assertThat(EventBatch.toMicros(Double.NaN)).isZero();
    assertThat(EventBatch.toMicros(Double.POSITIVE_INFINITY)).isZero();
  }

  static Stream<Arguments> malformed() {
    final Msgpack.Writer goodStored =
        Msgpack.storedTuple(new long[] {1}, null, tokens(0, 4), 4, null, true);
    return Stream.of(
        Arguments.of("empty payload", new byte[0], "empty payload"),
        Arguments.of("not an array", pack(p -> p.packInt(3)), "want an array [ts, events]"),
        Arguments.of(
            "one element", pack(p -> p.packArrayHeader(1).packDouble(1)), "got 1 elements"),
        Arguments.of(
            "string ts",
            pack(p -> p.packArrayHeader(2).packString("now").packArrayHeader(0)),
            "ts: want a number, got STRING"),
        Arguments.of(
            "events not an array",
            pack(p -> p.packArrayHeader(2).packDouble(1).packInt(1)),
            "events: want an array, got INTEGER"),
        Arguments.of("event is an int", batch(1, p -> p.packInt(4)), "event[0]: want a tuple or"),
        Arguments.of("empty tuple", batch(1, p -> p.packArrayHeader(0)), "event tuple is empty"),
        Arguments.of(
            "int tag",
            batch(1, p -> p.packArrayHeader(1).packInt(1)),
            "tag must be a string, got INTEGER"),
        Arguments.of(
            "BlockStored with 4 fields",
            batch(
                1,
                p -> {
                  p.packArrayHeader(4).packString("BlockStored").packArrayHeader(0).packNil();
                  p.packArrayHeader(0);
                }),
            "BlockStored: want >=5 fields, got 4"),
        Arguments.of(
            "block_hashes not an array",
            batch(1, p -> p.packArrayHeader(2).packString("BlockRemoved").packInt(5)),
            "BlockRemoved.block_hashes: want an array"),
        Arguments.of(
            "nil hash",
            batch(
                1,
                p -> p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(1).packNil()),
            "block_hashes[0]: block hash is nil"),
        Arguments.of(
            "float hash",
            batch(
                1,
                p ->
                    p.packArrayHeader(2)
                        .packString("BlockRemoved")
                        .packArrayHeader(1)
                        .packDouble(1.5)),
            "unsupported block-hash type FLOAT"),
        Arguments.of(
            "bool parent",
            batch(
                1,
                p -> {
                  p.packArrayHeader(5).packString("BlockStored").packArrayHeader(0);
                  p.packBoolean(true).packArrayHeader(0).packInt(4);
                }),
            "parent_block_hash: unsupported block-hash type BOOLEAN"),
        Arguments.of(
            "events array shorter than declared",
            batch(1, Msgpack.storedTuple(new long[] {1}, null, new int[0], 4, null, true), p -> {}),
            "invalid msgpack"),
        Arguments.of(
            "token below zero",
            batch(1, storedWithTokens(p -> p.packArrayHeader(1).packLong(-1))),
            "token id -1 out of uint32 range"),
        Arguments.of(
            "token 2^32",
            batch(1, storedWithTokens(p -> p.packArrayHeader(1).packLong(1L << 32))),
            "token id 4294967296 out of uint32 range"),
        Arguments.of(
            "token uint64 max",
            batch(
                1,
                storedWithTokens(
                    p ->
                        p.packArrayHeader(1)
                            .packBigInteger(
                                BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)))),
            "18446744073709551615 out of uint32 range"),
        Arguments.of(
            "string token",
            batch(1, storedWithTokens(p -> p.packArrayHeader(1).packString("a"))),
            "token id must be an integer, got STRING"),
        Arguments.of(
            "token_ids a map",
            batch(1, storedWithTokens(p -> p.packMapHeader(0))),
            "token_ids: want an array, got MAP"),
        Arguments.of(
            "block_size 0",
            batch(1, storedWithBlockSize(p -> p.packInt(0))),
            "block_size: must be positive, got 0"),
        Arguments.of(
            "block_size -3",
            batch(1, storedWithBlockSize(p -> p.packInt(-3))),
            "must be positive, got -3"),
        Arguments.of(
            "block_size 2^31",
            batch(1, storedWithBlockSize(p -> p.packLong(1L << 31))),
            "2147483648 out of int32 range"),
        Arguments.of(
            "block_size string",
            batch(1, storedWithBlockSize(p -> p.packString("16"))),
            "block_size: want an integer, got STRING"),
        Arguments.of(
            "block_size nil",
            batch(1, storedWithBlockSize(p -> p.packNil())),
            "block_size: want an integer, got NIL"),
        Arguments.of(
            "string lora",
            batch(1, storedWithLora(p -> p.packString("sql"))),
            "unsupported lora_id type STRING"),
        Arguments.of(
            "float lora",
            batch(1, storedWithLora(p -> p.packDouble(1.0))),
            "unsupported lora_id type FLOAT"),
        Arguments.of(
            "uint64 lora beyond int64",
            batch(1, storedWithLora(p -> p.packBigInteger(BigInteger.ONE.shiftLeft(63)))),
            "lora id 9223372036854775808 out of int64 range"),
        Arguments.of(
            "BlockRemoved with 1 field",
            batch(1, p -> p.packArrayHeader(1).packString("BlockRemoved")),
            "BlockRemoved: want >=2 fields, got 1"),
        Arguments.of(
            "map without type",
            batch(1, p -> p.packMapHeader(1).packString("block_hashes").packArrayHeader(0)),
            "map event has no \"type\" key"),
        Arguments.of(
            "map with int type",
            batch(1, p -> p.packMapHeader(1).packString("type").packInt(1)),
            "\"type\" must be a string, got INTEGER"),
        Arguments.of(
            "map with int key",
            batch(1, p -> p.packMapHeader(1).packInt(1).packInt(2)),
            "map key must be a string, got INTEGER"),
        Arguments.of(
            "map BlockStored without block_hashes",
            batch(
                1,
                p -> {
                  p.packMapHeader(3).packString("type").packString("BlockStored");
                  p.packString("token_ids").packArrayHeader(0);
                  p.packString("block_size").packInt(4);
                }),
            "BlockStored: missing required key block_hashes"),
        Arguments.of(
            "map BlockStored without token_ids",
            batch(
                1,
                p -> {
                  p.packMapHeader(3).packString("type").packString("BlockStored");
                  p.packString("block_hashes").packArrayHeader(0);
                  p.packString("block_size").packInt(4);
                }),
            "BlockStored: missing required key token_ids"),
        Arguments.of(
            "map BlockStored without block_size",
            batch(
                1,
                p -> {
                  p.packMapHeader(3).packString("type").packString("BlockStored");
                  p.packString("block_hashes").packArrayHeader(0);
                  p.packString("token_ids").packArrayHeader(0);
                }),
            "BlockStored: missing required key block_size"),
        Arguments.of(
            "map BlockStored with bad block_size",
            batch(
                1,
                p -> {
                  p.packMapHeader(4).packString("type").packString("BlockStored");
                  p.packString("block_hashes").packArrayHeader(0);
                  p.packString("token_ids").packArrayHeader(0);
                  p.packString("block_size").packInt(0);
                }),
            "BlockStored.block_size: must be positive"),
        Arguments.of(
            "map BlockRemoved without block_hashes",
            batch(1, p -> p.packMapHeader(1).packString("type").packString("BlockRemoved")),
            "BlockRemoved: missing required key block_hashes"),
        Arguments.of(
            "good event then a bad one",
            batch(1, goodStored, p -> p.packArrayHeader(1).packInt(1)),
            "event[1]: tag must be a string"),
        Arguments.of(
            "huge array header without data",
            new byte[] {(byte) 0xdd, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},
            "event batch: declares 2147483647 elements"),
        Arguments.of(
            "huge string hash without data",
            pack(
                p -> {
                  p.packArrayHeader(2).packDouble(1).packArrayHeader(1);
                  p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(1);
                  p.writePayload(new byte[] {(byte) 0xdb, 0x7f, 0, 0, 0});
                }),
            "declares 2130706432 bytes"),
        Arguments.of("truncated payload", truncate(batch(1, goodStored), 1), "invalid msgpack"),
        Arguments.of("reserved byte 0xc1", new byte[] {(byte) 0xc1}, "invalid msgpack"));
  }

  private static Msgpack.Writer storedWithTokens(final Msgpack.Writer tokens) {
    return p -> {
      p.packArrayHeader(5).packString("BlockStored").packArrayHeader(0).packNil();
      tokens.write(p);
      p.packInt(4);
    };
  }

  private static Msgpack.Writer storedWithBlockSize(final Msgpack.Writer blockSize) {
    return p -> {
      p.packArrayHeader(5).packString("BlockStored").packArrayHeader(0).packNil();
      p.packArrayHeader(0);
      blockSize.write(p);
    };
  }

  private static Msgpack.Writer storedWithLora(final Msgpack.Writer lora) {
    return p -> {
      p.packArrayHeader(6).packString("BlockStored").packArrayHeader(0).packNil();
      p.packArrayHeader(0).packInt(4);
      lora.write(p);
    };
  }

  private static byte[] truncate(final byte[] b, final int drop) {
    final byte[] out = new byte[b.length - drop];
    System.arraycopy(b, 0, out, 0, out.length);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void rejectsMalformedBatchNamingTheProblem(
      final String name, final byte[] payload, final String message) {
    assertThatThrownBy(() -> decoder.decode(payload))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining(message);
  }

  @Test
  void nullPayloadIsADecodeError() {
    assertThatThrownBy(() -> decoder.decode(null))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("empty payload");
  }

  /** Decodes, and fails the test on anything thrown but {@link EventDecodeException}. */
  private void decodeOrReject(final byte[] input) {
    try {
      decoder.decode(input);
    } catch (final EventDecodeException expected) {
      // fine
    } catch (final Throwable t) {
      fail("decoder threw " + t + " for input " + HexFormat.of().formatHex(input), t);
    }
  }

  @Test
  void randomBytesNeverThrowAnythingButDecodeException() {
    final Random random = new Random(1337);
    for (int i = 0; i < 20_000; i++) {
      final byte[] input = new byte[random.nextInt(64)];
      random.nextBytes(input);
      if (input.length > 0 && random.nextBoolean()) {
        input[0] = (byte) (0x90 | random.nextInt(4)); // a small fixarray: reach deeper code
      }
      decodeOrReject(input);
    }
  }

  @Test
  void mutatedValidPayloadsNeverThrowAnythingButDecodeException() {
    final List<byte[]> seeds =
        List.of(
            batch(
                1.5,
                Msgpack.storedTuple(
                    new long[] {0xE000, 0xE001}, 0xDEADL, tokens(0, 8), 4, 3L, true),
                Msgpack.removedTuple(0xE000),
                Msgpack.clearedTuple()),
            pack(
                p -> {
                  p.packArrayHeader(3).packDouble(2).packArrayHeader(1).packMapHeader(5);
                  p.packString("type").packString("BlockStored");
                  p.packString("block_hashes").packArrayHeader(1).packBinaryHeader(2);
                  p.writePayload(new byte[] {1, 2});
                  p.packString("token_ids").packArrayHeader(2).packInt(1).packInt(2);
                  p.packString("block_size").packInt(2);
                  p.packString("lora_id").packNil();
                  p.packInt(0);
                }));
    final Random random = new Random(42);
    int decoded = 0;
    for (int i = 0; i < 30_000; i++) {
      final byte[] seed = seeds.get(i % seeds.size());
      final byte[] input = seed.clone();
      final int mutations = 1 + random.nextInt(4);
      for (int m = 0; m < mutations; m++) {
        input[random.nextInt(input.length)] = (byte) random.nextInt(256);
      }
      final int length = random.nextInt(8) == 0 ? random.nextInt(input.length + 1) : input.length;
      final byte[] cut = new byte[length];
      System.arraycopy(input, 0, cut, 0, length);
      decodeOrReject(cut);
      try {
        decoder.decode(cut);
        decoded++;
      } catch (final EventDecodeException expected) {
        // fine
      }
    }
    assertThat(decoded).as("some mutations still decode").isPositive();
  }
}
