package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderBuffer;

/** Package bridge to the holder buffer's writer-side operations. */
final class HolderBuffers {
  private HolderBuffers() {}

  static void copy(final HolderBuffer from, final int i, final HolderBuffer to, final int j) {
    HolderBuffer.copyRecord(from, i, to, j);
  }

  static void setCount(final HolderBuffer b, final int n) {
    HolderBuffer.setCount(b, n);
  }
}
