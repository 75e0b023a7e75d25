package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Test listener that records every stored and removed prefix entry by its hash (read as UTF-8):
 * {@link #stored} lists hashes, {@link #removed} lists {@code "<reason> <hash>"}, and {@link
 * #events} keeps both in order as {@code "+hash"} / {@code "-hash"}; {@link #holderEvents} the same
 * as {@code "+replica hash"} / {@code "-replica hash"}, for tests with several holders per block.
 */
final class RecordedChanges implements IndexListener {
  final List<String> stored = new ArrayList<>();
  final List<String> removed = new ArrayList<>();
  final List<String> events = new ArrayList<>();
  final List<String> holderEvents = new ArrayList<>();

  /** Replays {@link #events}: every removal follows a store; returns what is stored at the end. */
  Set<String> replay() {
    return replay(events);
  }

  /**
   * Replays {@link #holderEvents}: returns the {@code "replica hash"} holders stored at the end.
   */
  Set<String> replayHolders() {
    return replay(holderEvents);
  }

  private static Set<String> replay(final List<String> events) {
    final Set<String> live = new HashSet<>();
    for (String e : events) {
      if (e.charAt(0) == '+') {
        live.add(e.substring(1));
      } else {
        assertThat(live.remove(e.substring(1))).as("removed while stored: %s", e).isTrue();
      }
    }
    return live;
  }

  @Override
  public boolean wantsChanges() {
    return true;
  }

  @Override
  public void onPrefixStored(
      final String tenant,
      final String model,
      final String replica,
      final String scheme,
      final String adapter,
      final byte[] hash,
      final int tokenCount,
      final long ts) {
    final String h = new String(hash, StandardCharsets.UTF_8);
    stored.add(h);
    events.add("+" + h);
    holderEvents.add("+" + replica + " " + h);
  }

  @Override
  public void onPrefixRemoved(
      final String tenant,
      final String model,
      final String replica,
      final String scheme,
      final String adapter,
      final byte[] hash,
      final String reason,
      final long ts) {
    final String h = new String(hash, StandardCharsets.UTF_8);
    removed.add(reason + " " + h);
    events.add("-" + h);
    holderEvents.add("-" + replica + " " + h);
  }
}
