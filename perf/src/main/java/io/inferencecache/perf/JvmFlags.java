package io.inferencecache.perf;

import io.inferencecache.perf.engine.MemoryFootprint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The JVM flags Chronicle Map and Agrona need, read from {@code jvm-flags.properties}, which Maven
 * filters from the parent POM's {@code offheap.jvm.flags} — the single source of the flags for
 * surefire, the JMH forks and {@link MemoryFootprint}.
 *
 * <p>Run as a main it prints the flags on one line, for shell scripts: {@code java $(java -cp
 * benchmarks.jar io.inferencecache.perf.JvmFlags) ...}.
 */
public final class JvmFlags {
  private static final String RESOURCE = "jvm-flags.properties";
  private static final String KEY = "offheap.jvm.flags";

  private JvmFlags() {}

  /** The flags, one per element; never empty (an unfiltered resource is an error). */
  public static List<String> offHeap() {
    final Properties p = new Properties();
    try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    final String flags = p.getProperty(KEY, "").trim();
    if (flags.isEmpty() || flags.contains("${")) {
      throw new IllegalStateException(RESOURCE + " was not filtered by Maven: '" + flags + "'");
    }
    return List.of(flags.split("\\s+"));
  }

  /** Prints the flags space-separated. */
  public static void main(final String[] args) {
    System.out.println(String.join(" ", offHeap()));
  }

  /** {@code extra} appended to the off-heap flags. */
  static String[] with(final List<String> extra) {
    final List<String> base = offHeap();
    final String[] out = Arrays.copyOf(base.toArray(new String[0]), base.size() + extra.size());
    for (int i = 0; i < extra.size(); i++) {
      out[base.size() + i] = extra.get(i);
    }
    return out;
  }
}
