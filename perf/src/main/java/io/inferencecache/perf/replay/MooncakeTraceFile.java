package io.inferencecache.perf.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.perf.workload.MooncakeWorkload;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Mooncake request trace in arrival order: per request its {@code timestamp} (ms from the start),
 * {@code output_length} (tokens) and {@code hash_ids} (the prompt's chain of 512-token blocks).
 *
 * <p><b>Worker duplication.</b> With duplication {@code d} the trace is replayed as {@code d}
 * copies with disjoint block-id spaces, interleaved: replayed request {@code j} is request {@code j
 * / d} of copy {@code j % d} (same timestamp). Block id {@code id} of copy {@code k} becomes the
 * key {@code k << 40 | id} (ids must be below 2^40), hashed on the wire as its 8 bytes big-endian.
 */
public final class MooncakeTraceFile {
  /** Tokens per block of the Mooncake traces. */
  public static final int TOKENS_PER_BLOCK = 512;

  private static final int COPY_SHIFT = 40;

  private final Path path;
  private final long[] timestampMs;
  private final int[] outputTokens;
  private final int[] inputTokens;
  private final long[][] chains;

  private MooncakeTraceFile(
      final Path path,
      final long[] timestampMs,
      final int[] outputTokens,
      final int[] inputTokens,
      final long[][] chains) {
    this.path = path;
    this.timestampMs = timestampMs;
    this.outputTokens = outputTokens;
    this.inputTokens = inputTokens;
    this.chains = chains;
  }

  /**
   * Reads a Mooncake JSONL trace, gzip-compressed when the name ends in {@code .gz}; requests
   * without hash_ids are skipped.
   */
  public static MooncakeTraceFile load(final Path path) {
    final ObjectMapper mapper = new ObjectMapper();
    final List<long[]> chains = new ArrayList<>();
    final List<long[]> meta = new ArrayList<>();
    try (BufferedReader in = MooncakeWorkload.open(path)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        final JsonNode n = mapper.readTree(line);
        final JsonNode ids = n.get("hash_ids");
        if (ids == null || !ids.isArray() || ids.isEmpty()) {
          continue;
        }
        final long[] chain = new long[ids.size()];
        for (int i = 0; i < chain.length; i++) {
          final long id = ids.get(i).asLong();
          if (id < 0 || id >= 1L << COPY_SHIFT) {
            throw new IllegalArgumentException("block id out of range [0, 2^40): " + id);
          }
          chain[i] = id;
        }
        chains.add(chain);
        meta.add(
            new long[] {
              n.path("timestamp").asLong(),
              n.path("output_length").asLong(),
              n.path("input_length").asLong((long) chain.length * TOKENS_PER_BLOCK)
            });
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + path, e);
    }
    if (chains.isEmpty()) {
      throw new IllegalArgumentException("trace " + path + " has no requests");
    }
    final long[] ts = new long[chains.size()];
    final int[] out = new int[chains.size()];
    final int[] in = new int[chains.size()];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = meta.get(i)[0];
      out[i] = (int) Math.min(Integer.MAX_VALUE, Math.max(0, meta.get(i)[1]));
      in[i] = (int) Math.min(Integer.MAX_VALUE, Math.max(0, meta.get(i)[2]));
      if (i > 0 && ts[i] < ts[i - 1]) {
        throw new IllegalArgumentException(
            "trace " + path + " is not in arrival order at request " + i);
      }
    }
    return new MooncakeTraceFile(path, ts, out, in, chains.toArray(new long[0][]));
  }

  public Path path() {
    return path;
  }

  /** Requests of one copy. */
  public int requests() {
    return chains.length;
  }

  /** Arrival of request {@code i}, ms from the trace start. */
  public long timestampMs(final int i) {
    return timestampMs[i] - timestampMs[0];
  }

  public int outputTokens(final int i) {
    return outputTokens[i];
  }

  /** Prompt length of request {@code i}, tokens ({@code input_length}; chain × 512 if absent). */
  public int inputTokens(final int i) {
    return inputTokens[i];
  }

  /** The original block ids of request {@code i} (not to be modified). */
  public long[] ids(final int i) {
    return chains[i];
  }

  /** Block keys of request {@code i} in copy {@code copy} (a new array). */
  public long[] keys(final int i, final int copy) {
    final long[] ids = chains[i];
    final long[] out = new long[ids.length];
    final long base = (long) copy << COPY_SHIFT;
    for (int b = 0; b < ids.length; b++) {
      out[b] = base | ids[b];
    }
    return out;
  }

  /** Writes {@code key} as 8 bytes big-endian at {@code dst[at..at+8)}. */
  public static void putKey(final byte[] dst, final int at, final long key) {
    for (int i = 0; i < 8; i++) {
      dst[at + i] = (byte) (key >>> (56 - 8 * i));
    }
  }

  /** The 8-byte big-endian hash of {@code key}. */
  public static byte[] hashOf(final long key) {
    final byte[] b = new byte[8];
    putKey(b, 0, key);
    return b;
  }
}
