package io.inferencecache.subscriber.decode;

import io.inferencecache.engine.fingerprint.Fingerprint;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decodes one msgpack {@code EventBatch} payload (the last ZMQ frame) as vLLM and SGLang publish
 * it.
 *
 * <pre>
 * EventBatch       = [ts (float seconds), events (array), ...ignored trailing fields]
 * event (tuple)    = [tag (str), ...fields]              (SGLang, legacy vLLM)
 * event (map)      = {"type": tag, field: value, ...}    (newer vLLM)
 *   BlockStored      ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id?]
 *                    map keys: block_hashes (req), parent_block_hash (opt), token_ids (req),
 *                              block_size (req, &gt; 0), lora_id (opt)
 *   BlockRemoved     ["BlockRemoved", block_hashes]      map key: block_hashes (req)
 *   AllBlocksCleared ["AllBlocksCleared"]                map: type only
 * </pre>
 *
 * <p>Rules: a batch with fewer than 2 elements is an error; unknown tags are skipped (forward
 * compatibility); any malformed event rejects the whole batch. Block hashes: bin/str pass through
 * as bytes (str as its UTF-8 bytes), integers become 8-byte big-endian (a negative int64 is
 * reinterpreted as uint64, and a uint64 beyond {@code Long.MAX_VALUE} keeps its bits), nil is an
 * error. {@code parent_block_hash} nil means no parent. Token ids must be integers in [0, 2^32-1].
 * {@code lora_id} nil or absent means none, an int64 is the id, anything else is an error. Like
 * upstream, a nil {@code events}, {@code block_hashes} or {@code token_ids} array decodes as empty,
 * a nil {@code ts} as 0, and bytes after the top-level value are ignored.
 *
 * <p>{@link #decode} throws nothing but {@link EventDecodeException}, whatever the input: array,
 * map, string and binary lengths are checked against the bytes left before anything is allocated,
 * and values of unknown events are skipped without being materialised.
 *
 * <p>Stateless and thread-safe.
 */
public final class EventBatchDecoder {
  /** Tag of a block-store event. */
  public static final String BLOCK_STORED = "BlockStored";

  /** Tag of a block-eviction event. */
  public static final String BLOCK_REMOVED = "BlockRemoved";

  /** Tag of a whole-cache flush event. */
  public static final String ALL_BLOCKS_CLEARED = "AllBlocksCleared";

  /** Map-form key holding the event tag. */
  public static final String TYPE_KEY = "type";

  /** Decodes {@code payload}; see the class comment for the accepted shapes. */
  public EventBatch decode(final byte[] payload) throws EventDecodeException {
    if (payload == null || payload.length == 0) {
      throw new EventDecodeException("event batch: empty payload");
    }
    try {
      return new Cursor(payload).batch();
    } catch (final EventDecodeException e) {
      throw e;
    } catch (final IOException | RuntimeException e) {
      throw new EventDecodeException("event batch: invalid msgpack: " + e, e);
    }
  }

  /** A read position over one payload; the unpacker is replaced when a map event is re-read. */
  private static final class Cursor {
    private final byte[] payload;
    private MessageUnpacker in;
    private int base;

    Cursor(final byte[] payload) {
      this.payload = payload;
      this.in = MessagePack.newDefaultUnpacker(payload);
      this.base = 0;
    }

    private int position() {
      return base + (int) in.getTotalReadBytes();
    }

    private int remaining() {
      return payload.length - position();
    }

    private void seek(final int absolute) {
      in = MessagePack.newDefaultUnpacker(payload, absolute, payload.length - absolute);
      base = absolute;
    }

    private ValueType next() throws IOException {
      return in.getNextFormat().getValueType();
    }

    /** Checks a declared element count: every element needs at least one byte. */
    private int checkCount(final long declared, final int bytesPerElement, final String what)
        throws EventDecodeException {
      if (declared < 0 || declared * bytesPerElement > remaining()) {
        throw new EventDecodeException(
            what
                + ": declares "
                + declared
                + " elements but only "
                + remaining()
                + " bytes remain");
      }
      return (int) declared;
    }

    private byte[] readBytes(final int length, final String what)
        throws IOException, EventDecodeException {
      if (length < 0 || length > remaining()) {
        throw new EventDecodeException(
            what + ": declares " + length + " bytes but only " + remaining() + " remain");
      }
      return in.readPayload(length);
    }

    private String readString(final String what) throws IOException, EventDecodeException {
      final int length = in.unpackRawStringHeader();
      return new String(readBytes(length, what), StandardCharsets.UTF_8);
    }

    private void skip(final int values) throws IOException {
      for (int i = 0; i < values; i++) {
        in.skipValue();
      }
    }

    EventBatch batch() throws IOException, EventDecodeException {
      final ValueType top = next();
      if (top != ValueType.ARRAY) {
        throw new EventDecodeException("event batch: want an array [ts, events], got " + top);
      }
      final int n = checkCount(in.unpackArrayHeader(), 1, "event batch");
      if (n < 2) {
        throw new EventDecodeException("event batch: want [ts, events], got " + n + " elements");
      }
      final double ts = timestamp();
      final List<KvEvent> events = events();
      skip(n - 2);
      return new EventBatch(ts, events);
    }

    private double timestamp() throws IOException, EventDecodeException {
      final MessageFormat format = in.getNextFormat();
      switch (format.getValueType()) {
        case FLOAT:
          return in.unpackDouble();
        case INTEGER:
          return format == MessageFormat.UINT64
              ? in.unpackBigInteger().doubleValue()
              : (double) in.unpackLong();
        case NIL:
          in.unpackNil();
          return 0.0;
        default:
          throw new EventDecodeException(
              "event batch ts: want a number, got " + format.getValueType());
      }
    }

    private List<KvEvent> events() throws IOException, EventDecodeException {
      final ValueType type = next();
      if (type == ValueType.NIL) {
        in.unpackNil();
        return List.of();
      }
      if (type != ValueType.ARRAY) {
        throw new EventDecodeException("event batch events: want an array, got " + type);
      }
      final int n = checkCount(in.unpackArrayHeader(), 1, "event batch events");
      final List<KvEvent> out = new ArrayList<>(Math.min(n, 1024));
      for (int i = 0; i < n; i++) {
        final KvEvent event = event("event[" + i + "]");
        if (event != null) {
          out.add(event);
        }
      }
      return out;
    }

    private KvEvent event(final String where) throws IOException, EventDecodeException {
      final ValueType type = next();
      if (type == ValueType.ARRAY) {
        return tupleEvent(where);
      }
      if (type == ValueType.MAP) {
        return mapEvent(where);
      }
      throw new EventDecodeException(where + ": want a tuple or a map, got " + type);
    }

    private KvEvent tupleEvent(final String where) throws IOException, EventDecodeException {
      final int n = checkCount(in.unpackArrayHeader(), 1, where);
      if (n == 0) {
        throw new EventDecodeException(where + ": event tuple is empty");
      }
      final ValueType tagType = next();
      if (tagType != ValueType.STRING) {
        throw new EventDecodeException(where + ": tag must be a string, got " + tagType);
      }
      final String tag = readString(where + " tag");
      final String at = where + " " + tag;
      switch (tag) {
        case BLOCK_STORED:
          {
            if (n < 5) {
              throw new EventDecodeException(at + ": want >=5 fields, got " + n);
            }
            final List<byte[]> hashes = hashes(at + ".block_hashes");
            final byte[] parent = parent(at + ".parent_block_hash");
            final int[] tokens = tokenIds(at + ".token_ids");
            final int blockSize = blockSize(at + ".block_size");
            final OptionalLong lora = n >= 6 ? loraId(at + ".lora_id") : OptionalLong.empty();
            skip(n - Math.min(n, 6));
            return new KvEvent.BlockStored(hashes, parent, tokens, blockSize, lora);
          }
        case BLOCK_REMOVED:
          {
            if (n < 2) {
              throw new EventDecodeException(at + ": want >=2 fields, got " + n);
            }
            final List<byte[]> hashes = hashes(at + ".block_hashes");
            skip(n - 2);
            return new KvEvent.BlockRemoved(hashes);
          }
        case ALL_BLOCKS_CLEARED:
          skip(n - 1);
          return new KvEvent.AllBlocksCleared();
        default:
          skip(n - 1);
          return null;
      }
    }

    private KvEvent mapEvent(final String where) throws IOException, EventDecodeException {
      final int n = checkCount(in.unpackMapHeader(), 2, where);
      final int start = position();
      // First pass: find the tag; the fields can only be interpreted once it is known.
      String tag = null;
      for (int i = 0; i < n; i++) {
        final String key = mapKey(where);
        if (TYPE_KEY.equals(key)) {
          final ValueType t = next();
          if (t != ValueType.STRING) {
            throw new EventDecodeException(where + ": \"type\" must be a string, got " + t);
          }
          tag = readString(where + " type");
        } else {
          in.skipValue();
        }
      }
      if (tag == null) {
        throw new EventDecodeException(where + ": map event has no \"type\" key");
      }
      final String at = where + " " + tag;
      switch (tag) {
        case BLOCK_STORED:
          return mapBlockStored(at, n, start);
        case BLOCK_REMOVED:
          return mapBlockRemoved(at, n, start);
        case ALL_BLOCKS_CLEARED:
          return new KvEvent.AllBlocksCleared();
        default:
          return null;
      }
    }

    private String mapKey(final String where) throws IOException, EventDecodeException {
      final ValueType t = next();
      if (t != ValueType.STRING) {
        throw new EventDecodeException(where + ": map key must be a string, got " + t);
      }
      return readString(where + " key");
    }

    private KvEvent mapBlockStored(final String at, final int n, final int start)
        throws IOException, EventDecodeException {
      final int end = position();
      seek(start);
      List<byte[]> hashes = null;
      byte[] parent = null;
      int[] tokens = null;
      int blockSize = 0;
      boolean haveBlockSize = false;
      OptionalLong lora = OptionalLong.empty();
      for (int i = 0; i < n; i++) {
        final String key = mapKey(at);
        switch (key) {
          case "block_hashes":
            hashes = hashes(at + ".block_hashes");
            break;
          case "parent_block_hash":
            parent = parent(at + ".parent_block_hash");
            break;
          case "token_ids":
            tokens = tokenIds(at + ".token_ids");
            break;
          case "block_size":
            blockSize = blockSize(at + ".block_size");
            haveBlockSize = true;
            break;
          case "lora_id":
            lora = loraId(at + ".lora_id");
            break;
          default:
            in.skipValue();
        }
      }
      if (position() != end) {
        throw new EventDecodeException(at + ": map re-read out of step");
      }
      if (hashes == null) {
        throw new EventDecodeException(at + ": missing required key block_hashes");
      }
      if (tokens == null) {
        throw new EventDecodeException(at + ": missing required key token_ids");
      }
      if (!haveBlockSize) {
        throw new EventDecodeException(at + ": missing required key block_size");
      }
      return new KvEvent.BlockStored(hashes, parent, tokens, blockSize, lora);
    }

    private KvEvent mapBlockRemoved(final String at, final int n, final int start)
        throws IOException, EventDecodeException {
      seek(start);
      List<byte[]> hashes = null;
      for (int i = 0; i < n; i++) {
        if ("block_hashes".equals(mapKey(at))) {
          hashes = hashes(at + ".block_hashes");
        } else {
          in.skipValue();
        }
      }
      if (hashes == null) {
        throw new EventDecodeException(at + ": missing required key block_hashes");
      }
      return new KvEvent.BlockRemoved(hashes);
    }

    private List<byte[]> hashes(final String what) throws IOException, EventDecodeException {
      final ValueType type = next();
      if (type == ValueType.NIL) {
        in.unpackNil();
        return List.of();
      }
      if (type != ValueType.ARRAY) {
        throw new EventDecodeException(what + ": want an array, got " + type);
      }
      final int n = checkCount(in.unpackArrayHeader(), 1, what);
      final List<byte[]> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(hash(what + "[" + i + "]"));
      }
      return out;
    }

    private byte[] hash(final String what) throws IOException, EventDecodeException {
      final MessageFormat format = in.getNextFormat();
      switch (format.getValueType()) {
        case NIL:
          throw new EventDecodeException(what + ": block hash is nil");
        case BINARY:
          return readBytes(in.unpackBinaryHeader(), what);
        case STRING:
          return readBytes(in.unpackRawStringHeader(), what);
        case INTEGER:
          return Fingerprint.toWire(uint64Bits(format));
        default:
          throw new EventDecodeException(
              what + ": unsupported block-hash type " + format.getValueType());
      }
    }

    /**
     * An integer that must fit in an int64 (a uint64-encoded value may, if it is small enough).
     *
     * @param what the element and value name for the error, e.g. {@code "x.token_ids[3]: token id"}
     * @param range the range to name when the value does not fit
     */
    private long int64(final MessageFormat format, final String what, final String range)
        throws IOException, EventDecodeException {
      if (format != MessageFormat.UINT64) {
        return in.unpackLong();
      }
      final BigInteger value = in.unpackBigInteger();
      if (value.bitLength() >= 64) {
        throw new EventDecodeException(what + " " + value + " out of " + range + " range");
      }
      return value.longValue();
    }

    /** An integer's 64 bits: int64 as is, uint64 beyond {@code Long.MAX_VALUE} reinterpreted. */
    private long uint64Bits(final MessageFormat format) throws IOException {
      return format == MessageFormat.UINT64 ? in.unpackBigInteger().longValue() : in.unpackLong();
    }

    private byte[] parent(final String what) throws IOException, EventDecodeException {
      if (next() == ValueType.NIL) {
        in.unpackNil();
        return null;
      }
      return hash(what);
    }

    private int[] tokenIds(final String what) throws IOException, EventDecodeException {
      final ValueType type = next();
      if (type == ValueType.NIL) {
        in.unpackNil();
        return new int[0];
      }
      if (type != ValueType.ARRAY) {
        throw new EventDecodeException(what + ": want an array, got " + type);
      }
      final int n = checkCount(in.unpackArrayHeader(), 1, what);
      final int[] out = new int[n];
      for (int i = 0; i < n; i++) {
        final MessageFormat format = in.getNextFormat();
        if (format.getValueType() != ValueType.INTEGER) {
          throw new EventDecodeException(
              what + "[" + i + "]: token id must be an integer, got " + format.getValueType());
        }
        final long token = int64(format, what + "[" + i + "]: token id", "uint32");
        if (token < 0 || token > 0xFFFF_FFFFL) {
          throw new EventDecodeException(
              what + "[" + i + "]: token id " + token + " out of uint32 range");
        }
        out[i] = (int) token;
      }
      return out;
    }

    private int blockSize(final String what) throws IOException, EventDecodeException {
      final MessageFormat format = in.getNextFormat();
      if (format.getValueType() != ValueType.INTEGER) {
        throw new EventDecodeException(what + ": want an integer, got " + format.getValueType());
      }
      final long size = int64(format, what + ":", "int32");
      if (size <= 0) {
        throw new EventDecodeException(what + ": must be positive, got " + size);
      }
      if (size > Integer.MAX_VALUE) {
        throw new EventDecodeException(what + ": " + size + " out of int32 range");
      }
      return (int) size;
    }

    private OptionalLong loraId(final String what) throws IOException, EventDecodeException {
      final MessageFormat format = in.getNextFormat();
      switch (format.getValueType()) {
        case NIL:
          in.unpackNil();
          return OptionalLong.empty();
        case INTEGER:
          return OptionalLong.of(int64(format, what + ": lora id", "int64"));
        default:
          throw new EventDecodeException(
              what + ": unsupported lora_id type " + format.getValueType());
      }
    }
  }
}
