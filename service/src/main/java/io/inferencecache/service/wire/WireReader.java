package io.inferencecache.service.wire;

import org.agrona.DirectBuffer;

/**
 * A minimal protobuf wire-format cursor over a {@link DirectBuffer} slice. It never throws for
 * malformed input: every read reports failure through {@link #ok()}, so a parser can stop and
 * answer "bad input" instead of unwinding an exception on the hot path. Not thread-safe; reusable.
 */
public final class WireReader {
  public static final int VARINT = 0;
  public static final int I64 = 1;
  public static final int LEN = 2;
  public static final int I32 = 5;

  DirectBuffer buf;
  int pos;
  int limit;
  boolean ok;

  public WireReader wrap(final DirectBuffer b, final int offset, final int length) {
    this.buf = b;
    this.pos = offset;
    this.limit = offset + length;
    this.ok = true;
    return this;
  }

  /** The read position: the next byte to read (an offset into the wrapped buffer). */
  public int position() {
    return pos;
  }

  public boolean ok() {
    return ok;
  }

  public boolean hasMore() {
    return ok && pos < limit;
  }

  /** A varint as up to 64 bits; marks failure on truncation or overlong encoding. */
  public long varint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        ok = false;
        return 0;
      }
      final byte b = buf.getByte(pos++);
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return result;
      }
    }
    ok = false;
    return 0;
  }

  /**
   * The next tag, or 0 at the end (or on failure). Tags are unsigned 32-bit: field numbers up to
   * 2^29-1 give tags above {@link Integer#MAX_VALUE}, returned as negative ints (use {@code >>>}).
   */
  public int tag() {
    if (pos >= limit || !ok) {
      return 0;
    }
    final long t = varint();
    if (!ok || t <= 0 || t > 0xFFFFFFFFL || (t >>> 3) == 0) {
      ok = false;
      return 0;
    }
    return (int) t;
  }

  /** Length of a LEN field; the payload starts at {@link #pos}. Marks failure if it overruns. */
  public int length() {
    final long len = varint();
    if (!ok || len < 0 || len > limit - pos) {
      ok = false;
      return 0;
    }
    return (int) len;
  }

  /** Skips a field of {@code wireType}; groups (3/4) and unknown types are malformed. */
  public void skip(final int wireType) {
    switch (wireType) {
      case VARINT -> varint();
      case I64 -> advance(8);
      case LEN -> advance(length());
      case I32 -> advance(4);
      default -> ok = false;
    }
  }

  public void advance(final int n) {
    if (!ok || n < 0 || n > limit - pos) {
      ok = false;
      return;
    }
    pos += n;
  }
}
