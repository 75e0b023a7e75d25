package io.inferencecache.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.agrona.collections.LongHashSet;

/**
 * The Mooncake FAST'25 conversation trace as a workload: request {@code i}'s {@code hash_ids} is a
 * chain (each id an 8-byte big-endian hash, 512 tokens a block), stored on replica {@code i mod 8}
 * (round-robin), looked up as is.
 */
public final class MooncakeTrace implements Workload {
  /** The trace, relative to the repository root (where the benchmarks are run from). */
  public static final String DEFAULT_PATH = "../shared/data/mooncake/conversation_trace.jsonl";

  /** System property that overrides the path of a benchmark's {@code trace} parameter default. */
  public static final String PATH_PROPERTY = "mooncake.trace";

  public static final int TOKENS_PER_BLOCK = 512;
  public static final int REPLICAS = 8;

  private final Path path;
  private final long[][] chains;
  private final long holderBlocks;
  private final long distinctKeys;

  private MooncakeTrace(final Path path, final long[][] chains) {
    this.path = path;
    this.chains = chains;
    final LongHashSet[] perReplica = new LongHashSet[REPLICAS];
    final LongHashSet all = new LongHashSet();
    for (int r = 0; r < REPLICAS; r++) {
      perReplica[r] = new LongHashSet();
    }
    long entries = 0;
    for (int i = 0; i < chains.length; i++) {
      for (long id : chains[i]) {
        if (perReplica[i % REPLICAS].add(id)) {
          entries++;
        }
        all.add(id);
      }
    }
    this.holderBlocks = entries;
    this.distinctKeys = all.size();
  }

  /**
   * Resolves the trace path: {@code configured} unless blank, else the {@link #PATH_PROPERTY}
   * system property, else {@link #DEFAULT_PATH}; a relative path is tried against the working
   * directory and then each of its parents (so it works from the repository root or below it).
   */
  public static Path resolve(final String configured) {
    String p = configured == null || configured.isBlank() ? null : configured;
    if (p == null) {
      p = System.getProperty(PATH_PROPERTY, DEFAULT_PATH);
    }
    final Path given = Path.of(p);
    if (given.isAbsolute() || Files.exists(given)) {
      return given;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      final Path candidate = dir.resolve(p).normalize();
      if (Files.exists(candidate)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException(
        "Mooncake trace not found: "
            + p
            + " (relative to "
            + Path.of("").toAbsolutePath()
            + " or a parent); set -D"
            + PATH_PROPERTY
            + " or the trace parameter");
  }

  /** Reads a JSONL trace (one request a line, {@code hash_ids} the chain). */
  public static MooncakeTrace load(final Path path) {
    final ObjectMapper mapper = new ObjectMapper();
    final List<long[]> chains = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        final JsonNode ids = mapper.readTree(line).get("hash_ids");
        if (ids == null || !ids.isArray() || ids.isEmpty()) {
          continue;
        }
        final long[] chain = new long[ids.size()];
        for (int i = 0; i < chain.length; i++) {
          chain[i] = ids.get(i).asLong();
        }
        chains.add(chain);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Mooncake trace " + path, e);
    }
    if (chains.isEmpty()) {
      throw new IllegalArgumentException("Mooncake trace " + path + " has no requests");
    }
    return new MooncakeTrace(path, chains.toArray(new long[0][]));
  }

  @Override
  public String name() {
    return "mooncake";
  }

  public Path path() {
    return path;
  }

  public int requests() {
    return chains.length;
  }

  @Override
  public long holderBlocks() {
    return holderBlocks;
  }

  @Override
  public long distinctKeys() {
    return distinctKeys;
  }

  static String replicaName(final int r) {
    return "mooncake-r" + r;
  }

  @Override
  public void forEachUpdate(final Consumer<IngestUpdate> sink) {
    for (int i = 0; i < chains.length; i++) {
      final long[] ids = chains[i];
      final List<byte[]> hashes = new ArrayList<>(ids.length);
      for (long id : ids) {
        hashes.add(Workload.hashOf(id));
      }
      final int[] counts = new int[ids.length];
      Arrays.fill(counts, TOKENS_PER_BLOCK);
      sink.accept(
          new IngestUpdate(
              replicaName(i % REPLICAS),
              MODEL,
              TENANT,
              SCHEME,
              0,
              "",
              List.of(IngestPrefix.chain(hashes, counts, 0)),
              null));
    }
  }

  @Override
  public int lookups() {
    return chains.length;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Copies from the requests' hash bytes laid out flat (built on first use), so filling is a
   * plain copy, as from a request buffer. Allocation-free after the first call.
   */
  @Override
  public void fillLookup(final int i, final LookupRequest q) {
    byte[] f = flat;
    if (f == null) {
      f = flatHashes();
      flat = f;
    }
    q.reset().keys(TENANT, MODEL, SCHEME, "");
    final int end = start[i + 1];
    for (int at = start[i]; at < end; at += 8) {
      q.addBlockHash(f, at, 8).addBlockTokenCount(TOKENS_PER_BLOCK);
    }
  }

  private byte[] flat;
  private int[] start;

  private byte[] flatHashes() {
    final int[] s = new int[chains.length + 1];
    for (int i = 0; i < chains.length; i++) {
      s[i + 1] = s[i] + chains[i].length * 8;
    }
    final byte[] f = new byte[s[chains.length]];
    final byte[] h = new byte[8];
    for (int i = 0; i < chains.length; i++) {
      for (int b = 0; b < chains[i].length; b++) {
        Workload.putLongBe(h, chains[i][b]);
        System.arraycopy(h, 0, f, s[i] + b * 8, 8);
      }
    }
    start = s;
    return f;
  }
}
