package io.inferencecache.subscriber.decode;

import java.util.List;
import java.util.OptionalLong;

/**
 * One decoded engine KV-cache event. Values are produced fresh by {@link EventBatchDecoder} and are
 * not copied defensively: treat their arrays as read-only. Safe to publish between threads through
 * a {@link java.util.concurrent.BlockingQueue}.
 */
public sealed interface KvEvent
    permits KvEvent.BlockStored, KvEvent.BlockRemoved, KvEvent.AllBlocksCleared {

  /**
   * KV blocks became resident.
   *
   * @param blockHashes the engine's opaque per-block hashes (integers normalised to 8-byte
   *     big-endian, strings to their UTF-8 bytes)
   * @param parentBlockHash the engine hash of the block before the first one, normalised the same
   *     way; {@code null} for a sequence root
   * @param tokenIds the flat token ids of the blocks (u32 bit patterns), {@code blockSize} per
   *     block; hashed in-process, never forwarded
   * @param blockSize tokens per block, positive
   * @param loraId the engine's internal LoRA id; empty for the base model
   */
  record BlockStored(
      List<byte[]> blockHashes,
      byte[] parentBlockHash,
      int[] tokenIds,
      int blockSize,
      OptionalLong loraId)
      implements KvEvent {}

  /**
   * KV blocks were evicted from the engine's cache.
   *
   * @param blockHashes the engine's opaque per-block hashes, normalised like {@link
   *     BlockStored#blockHashes()}
   */
  record BlockRemoved(List<byte[]> blockHashes) implements KvEvent {}

  /** The engine flushed its whole KV cache. */
  record AllBlocksCleared() implements KvEvent {}
}
