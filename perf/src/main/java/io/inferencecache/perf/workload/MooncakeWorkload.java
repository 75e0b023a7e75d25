package io.inferencecache.perf.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import org.agrona.collections.LongHashSet;

/**
 * A Mooncake FAST'25 request trace (by default the conversation trace shipped in {@code
 * perf/data/}) as a workload: request {@code i}'s {@code hash_ids} is a chain (each id an 8-byte
 * big-endian hash, 512 tokens a block), stored on replica {@code i mod 8} (round-robin), looked up
 * as is.
 */
public final class MooncakeWorkload implements Workload {
  /**
   * Name of the in-repository conversation trace ({@code perf/data/conversation_trace.jsonl.gz}).
   */
  public static final String CONVERSATION = "conversation";

  /** Name of the in-repository synthetic trace ({@code perf/data/synthetic_trace.jsonl.gz}). */
  public static final String SYNTHETIC = "synthetic";

  /** The trace every benchmark, replay and gate uses unless told otherwise. */
  public static final String DEFAULT_TRACE = CONVERSATION;

  /** System property that overrides the default trace (a name above or a path). */
  public static final String PATH_PROPERTY = "mooncake.trace";

  /**
   * System property naming the folder of the in-repository traces; the perf POM sets it to {@code
   * ${project.basedir}/data} for tests. Unset, the folder is found from the perf classes' location.
   */
  public static final String DATA_DIR_PROPERTY = "mooncake.data";

  private static final String DATA_FILE_SUFFIX = "_trace.jsonl.gz";

  public static final int TOKENS_PER_BLOCK = 512;
  public static final int REPLICAS = 8;

  private final Path path;
  private final long[][] chains;
  private final long holderBlocks;
  private final long distinctKeys;

  private MooncakeWorkload(final Path path, final long[][] chains) {
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
   * Resolves a trace argument: {@code configured} unless blank, else the {@link #PATH_PROPERTY}
   * system property, else {@link #DEFAULT_TRACE}. {@link #CONVERSATION} and {@link #SYNTHETIC} name
   * the files of the in-repository data folder ({@link #dataDir()}); anything else is a path,
   * relative to the working directory like any command-line path.
   *
   * @throws IllegalArgumentException if the file does not exist (the message names it)
   */
  public static Path resolve(final String configured) {
    String p = configured == null || configured.isBlank() ? null : configured.strip();
    if (p == null) {
      p = System.getProperty(PATH_PROPERTY, DEFAULT_TRACE);
    }
    final Path file =
        p.equals(CONVERSATION) || p.equals(SYNTHETIC)
            ? dataDir().resolve(p + DATA_FILE_SUFFIX)
            : Path.of(p).toAbsolutePath();
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "Mooncake trace not found: "
              + file
              + " (a trace is '"
              + CONVERSATION
              + "', '"
              + SYNTHETIC
              + "' or a path; set -D"
              + PATH_PROPERTY
              + " or the trace parameter)");
    }
    return file;
  }

  /**
   * The folder of the in-repository traces: the {@link #DATA_DIR_PROPERTY} system property if set,
   * else the {@code data} folder of the perf module, found by walking up from where this class was
   * loaded ({@code perf/target/classes} or {@code perf/target/benchmarks.jar}).
   *
   * @throws IllegalStateException if neither gives a folder holding the conversation trace
   */
  public static Path dataDir() {
    final String configured = System.getProperty(DATA_DIR_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    final Path marker = Path.of("data", CONVERSATION + DATA_FILE_SUFFIX);
    Path from;
    try {
      from =
          Path.of(
              MooncakeWorkload.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot locate the perf classes to find the Mooncake traces; set -D" + DATA_DIR_PROPERTY,
          e);
    }
    for (Path dir = from.toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(marker))) {
        return dir.resolve("data");
      }
    }
    throw new IllegalStateException(
        "no data/"
            + CONVERSATION
            + DATA_FILE_SUFFIX
            + " above "
            + from
            + "; set -D"
            + DATA_DIR_PROPERTY
            + " to the perf module's data folder");
  }

  /**
   * Opens a trace for reading as UTF-8 text: through {@link GZIPInputStream} when the file name
   * ends in {@code .gz}, as plain text otherwise. The caller closes the reader.
   */
  public static BufferedReader open(final Path path) throws IOException {
    if (!path.getFileName().toString().endsWith(".gz")) {
      return Files.newBufferedReader(path, StandardCharsets.UTF_8);
    }
    final InputStream in = Files.newInputStream(path);
    try {
      return new BufferedReader(
          new InputStreamReader(new GZIPInputStream(in, 1 << 16), StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** Reads a JSONL trace (one request a line, {@code hash_ids} the chain). */
  public static MooncakeWorkload load(final Path path) {
    final ObjectMapper mapper = new ObjectMapper();
    final List<long[]> chains = new ArrayList<>();
    try (BufferedReader in = open(path)) {
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
    return new MooncakeWorkload(path, chains.toArray(new long[0][]));
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
