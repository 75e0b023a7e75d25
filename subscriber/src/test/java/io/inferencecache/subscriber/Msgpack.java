package io.inferencecache.subscriber;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** Builds test payloads with msgpack-core's packer. */
public final class Msgpack {
  /** Writes one or more values. */
  @FunctionalInterface
  public interface Writer {
    void write(MessageBufferPacker p) throws IOException;
  }

  private Msgpack() {}

  public static byte[] pack(final Writer writer) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      writer.write(p);
      return p.toByteArray();
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code [ts, [event...]]} where each event is written by one writer. */
  public static byte[] batch(final double ts, final Writer... events) {
    return pack(
        p -> {
          p.packArrayHeader(2).packDouble(ts).packArrayHeader(events.length);
          for (final Writer e : events) {
            e.write(p);
          }
        });
  }

  /** A BlockStored tuple with integer hashes and optional lora (null = 5 fields). */
  public static Writer storedTuple(
      final long[] hashes,
      final Long parent,
      final int[] tokens,
      final int blockSize,
      final Long lora,
      final boolean sixFields) {
    return p -> {
      p.packArrayHeader(sixFields ? 6 : 5).packString("BlockStored");
      p.packArrayHeader(hashes.length);
      for (final long h : hashes) {
        p.packLong(h);
      }
      if (parent == null) {
        p.packNil();
      } else {
        p.packLong(parent);
      }
      if (tokens == null) {
        p.packNil();
      } else {
        p.packArrayHeader(tokens.length);
        for (final int t : tokens) {
          p.packLong(t & 0xFFFF_FFFFL);
        }
      }
      p.packInt(blockSize);
      if (sixFields) {
        if (lora == null) {
          p.packNil();
        } else {
          p.packLong(lora);
        }
      }
    };
  }

  public static Writer removedTuple(final long... hashes) {
    return p -> {
      p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(hashes.length);
      for (final long h : hashes) {
        p.packLong(h);
      }
    };
  }

  public static Writer clearedTuple() {
    return p -> p.packArrayHeader(1).packString("AllBlocksCleared");
  }

  /** Tokens {@code from, from+1, ..., from+n-1}. */
  public static int[] tokens(final int from, final int n) {
    final int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = from + i;
    }
    return out;
  }
}
