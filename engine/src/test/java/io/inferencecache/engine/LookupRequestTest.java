package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * A request's chain holds every block hash exactly as sent, whatever its length and wherever it sat
 * in the caller's bytes (an array, a heap buffer or a direct buffer, at any alignment).
 */
class LookupRequestTest {
  private static byte[] source() {
    final byte[] src = new byte[64];
    for (int i = 0; i < src.length; i++) {
      src[i] = (byte) (i * 37 + 11);
    }
    return src;
  }

  private static void assertHashes(final LookupRequest q, final byte[] src, final int[] lens) {
    assertThat(q.blockHashCount()).isEqualTo(lens.length * 8);
    int h = 0;
    for (final int len : lens) {
      for (int off = 0; off < 8; off++, h++) {
        final byte[] got =
            Arrays.copyOfRange(q.chainBytes, q.hashOffset[h], q.hashOffset[h] + q.hashLength[h]);
        assertThat(got)
            .as("length %d at offset %d", len, off)
            .isEqualTo(Arrays.copyOfRange(src, off, off + len));
      }
    }
  }

  @Test
  void hashesFromAnArrayAreKeptAsSentAtEveryAlignment() {
    final byte[] src = source();
    final int[] lens = {8, 5, 12, 8, 16};
    final LookupRequest q = new LookupRequest().reset();
    for (final int len : lens) {
      for (int off = 0; off < 8; off++) {
        q.addBlockHash(src, off, len);
      }
    }
    assertHashes(q, src, lens);
  }

  @Test
  void hashesFromHeapAndDirectBuffersAreKeptAsSentAtEveryAlignment() {
    final byte[] src = source();
    final ByteBuffer direct = ByteBuffer.allocateDirect(src.length);
    direct.put(src).flip();
    for (final UnsafeBuffer buf :
        new UnsafeBuffer[] {new UnsafeBuffer(src), new UnsafeBuffer(direct)}) {
      final int[] lens = {8, 3, 8, 24};
      final LookupRequest q = new LookupRequest().reset();
      for (final int len : lens) {
        for (int off = 0; off < 8; off++) {
          q.addBlockHash(buf, off, len);
        }
      }
      assertHashes(q, src, lens);
    }
  }
}
