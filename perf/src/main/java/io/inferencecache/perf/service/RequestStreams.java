package io.inferencecache.perf.service;

import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reusable, allocation-free request streams and response sink for the in-process LookupRoute
 * benchmark, shaped like what grpc-netty hands the marshallers.
 */
final class RequestStreams {
  private RequestStreams() {}

  /**
   * A {@link KnownLength} stream over one of several byte arrays ({@link #select}), as gRPC's
   * {@code BufferInputStream} over a heap buffer: the zero-copy parser reads it into its own array.
   */
  static final class Heap extends InputStream implements KnownLength {
    private final byte[][] messages;
    private byte[] cur;
    private int pos;

    Heap(final byte[][] messages) {
      this.messages = messages;
      this.cur = messages[0];
    }

    Heap select(final int i) {
      cur = messages[i];
      pos = 0;
      return this;
    }

    @Override
    public int available() {
      return cur.length - pos;
    }

    @Override
    public int read() {
      return pos < cur.length ? cur[pos++] & 0xFF : -1;
    }

    @Override
    public int read(final byte[] b, final int off, final int len) {
      final int n = Math.min(len, cur.length - pos);
      if (n <= 0) {
        return len == 0 ? 0 : -1;
      }
      System.arraycopy(cur, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  /**
   * A {@link KnownLength} + {@link HasByteBuffer} stream over a slice of one direct {@link
   * ByteBuffer} holding every message back to back, as grpc-netty's {@code BufferInputStream} over
   * a (pooled, direct) Netty buffer: the zero-copy parser reads the message in place.
   */
  static final class Direct extends InputStream implements KnownLength, HasByteBuffer {
    private final ByteBuffer all;
    private final int[] offsets;
    private final int[] lengths;

    Direct(final byte[][] messages) {
      offsets = new int[messages.length];
      lengths = new int[messages.length];
      int total = 0;
      for (int i = 0; i < messages.length; i++) {
        offsets[i] = total;
        lengths[i] = messages[i].length;
        total += messages[i].length;
      }
      all = ByteBuffer.allocateDirect(total);
      for (byte[] m : messages) {
        all.put(m);
      }
      select(0);
    }

    Direct select(final int i) {
      all.limit(offsets[i] + lengths[i]).position(offsets[i]);
      return this;
    }

    @Override
    public boolean byteBufferSupported() {
      return true;
    }

    @Override
    public ByteBuffer getByteBuffer() {
      return all;
    }

    @Override
    public int available() {
      return all.remaining();
    }

    @Override
    public int read() {
      return all.hasRemaining() ? all.get() & 0xFF : -1;
    }

    @Override
    public int read(final byte[] b, final int off, final int len) {
      final int n = Math.min(len, all.remaining());
      if (n <= 0) {
        return len == 0 ? 0 : -1;
      }
      all.get(b, off, n);
      return n;
    }
  }

  /** A reusable response sink: keeps the last response's bytes ({@link #reset} before each). */
  static final class Sink extends OutputStream {
    byte[] buf = new byte[4096];
    int size;

    Sink reset() {
      size = 0;
      return this;
    }

    byte[] bytes() {
      return Arrays.copyOf(buf, size);
    }

    @Override
    public void write(final int b) {
      if (size == buf.length) {
        buf = Arrays.copyOf(buf, size * 2);
      }
      buf[size++] = (byte) b;
    }

    @Override
    public void write(final byte[] b, final int off, final int len) {
      if (size + len > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + len));
      }
      System.arraycopy(b, off, buf, size, len);
      size += len;
    }
  }
}
