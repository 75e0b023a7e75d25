package io.inferencecache.service.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A minimal protobuf wire-format writer into a reusable, growable byte array. Not thread-safe. */
public final class WireWriter {
  byte[] buf = new byte[512];
  int pos;

  /** Bytes written so far. */
  public int position() {
    return pos;
  }

  /** The backing array, valid up to {@link #position()}; replaced when the writer grows. */
  public byte[] array() {
    return buf;
  }

  public WireWriter reset() {
    pos = 0;
    return this;
  }

  private void ensure(final int n) {
    if (pos + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }
  }

  public void varint(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  public static int varintSize(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }

  public void tag(final int field, final int wireType) {
    varint(((long) field << 3) | wireType);
  }

  public void fixed32(final int v) {
    ensure(4);
    buf[pos++] = (byte) v;
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) (v >>> 16);
    buf[pos++] = (byte) (v >>> 24);
  }

  public void bytes(final byte[] b, final int off, final int len) {
    ensure(len);
    System.arraycopy(b, off, buf, pos, len);
    pos += len;
  }

  /** A string field from UTF-8 bytes (skipped when empty, as proto3 does). */
  public void utf8Field(final int field, final byte[] utf8) {
    if (utf8.length == 0) {
      return;
    }
    tag(field, WireReader.LEN);
    varint(utf8.length);
    bytes(utf8, 0, utf8.length);
  }

  /** A string field from a constant String (reason codes are ASCII constants; small). */
  public void asciiField(final int field, final String s) {
    if (s.isEmpty()) {
      return;
    }
    tag(field, WireReader.LEN);
    varint(s.length());
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      buf[pos++] = (byte) s.charAt(i);
    }
  }

  public static byte[] utf8(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
