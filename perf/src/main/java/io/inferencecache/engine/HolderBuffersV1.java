/*
 * Perf-scope copy of the engine's v1 layout (one Chronicle entry per block, 24-byte holder records),
 * kept only as the oracle of the v1/v2 differential test and the v1 column of the side-by-side
 * benchmarks. Not part of the product; delete once v2's figures are published.
 */
package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderBuffer;

/** Package bridge to the holder buffer's writer-side operations. */
final class HolderBuffersV1 {
  private HolderBuffersV1() {}

  static void copy(final HolderBuffer from, final int i, final HolderBuffer to, final int j) {
    HolderBuffer.copyRecord(from, i, to, j);
  }

  static void setCount(final HolderBuffer b, final int n) {
    HolderBuffer.setCount(b, n);
  }
}
