package io.inferencecache.templates;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The templates a server renders: one immutable snapshot behind a volatile reference, replaced
 * whole ({@link #replace}, writers serialised), read without a lock ({@link #find}). A replaced
 * template keeps the distinct-value sketches of the Stable slots it still has, by name, so a
 * re-push of the same set (the controller pushes on every interval) loses no count.
 */
public final class TemplateStore {
  /** A template and the sketches of its Stable slots. */
  public static final class Entry {
    private final PromptTemplate template;

    /** Per slot index: the sketch of a Stable slot, {@code null} for a Mutable one. */
    private final StableSlotSketch[] sketches;

    private Entry(final PromptTemplate template, final Entry previous) {
      this.template = template;
      final List<Slot> slots = template.spec().slots();
      this.sketches = new StableSlotSketch[slots.size()];
      for (int i = 0; i < slots.size(); i++) {
        if (slots.get(i).type() == SlotType.STABLE) {
          final StableSlotSketch kept =
              previous == null ? null : previous.stableSketch(slots.get(i).name());
          sketches[i] = kept != null ? kept : new StableSlotSketch();
        }
      }
    }

    public PromptTemplate template() {
      return template;
    }

    /** The sketch of Stable slot {@code slot}, or {@code null} (no such slot, or Mutable). */
    public StableSlotSketch stableSketch(final String slot) {
      final int i = template.slotIndexOf(slot);
      return i < 0 ? null : sketches[i];
    }

    /** Counts the values {@code variables} gives the Stable slots (after a successful render). */
    public void recordStableValues(final Map<String, String> variables) {
      final String[] names = template.slotNames;
      for (int i = 0; i < names.length; i++) {
        if (sketches[i] != null) {
          final String v = variables.get(names[i]);
          sketches[i].add(v == null ? "" : v);
        }
      }
    }
  }

  /** One Stable slot's estimate, for the metric. */
  public record SlotEstimate(
      String namespace, String template, String slot, double distinctValues) {}

  private record Snapshot(Map<String, Entry> byRef, List<PromptTemplate> templates) {}

  private static final Snapshot EMPTY = new Snapshot(Map.of(), List.of());

  private volatile Snapshot snapshot = EMPTY;

  /**
   * Replaces every template with {@code templates}.
   *
   * @throws IllegalArgumentException when two share a ref (the set is left as it was)
   */
  public synchronized void replace(final List<PromptTemplate> templates) {
    final Snapshot old = snapshot;
    final Map<String, Entry> byRef = new HashMap<>();
    for (PromptTemplate t : templates) {
      if (byRef.put(t.ref(), new Entry(t, old.byRef().get(t.ref()))) != null) {
        throw new IllegalArgumentException("template " + t.ref() + " appears twice");
      }
    }
    snapshot = new Snapshot(Map.copyOf(byRef), List.copyOf(templates));
  }

  /** The template {@code ref} ({@code namespace/name}) with its sketches, or {@code null}. */
  public Entry find(final String ref) {
    return snapshot.byRef().get(ref);
  }

  /** Whether the server holds no template at all (RenderTemplate then keeps upstream's answer). */
  public boolean isEmpty() {
    return snapshot.templates().isEmpty();
  }

  /** The templates held, in the order they were given. */
  public List<PromptTemplate> templates() {
    return snapshot.templates();
  }

  /** The distinct-value estimate of every Stable slot of every template held, in template order. */
  public List<SlotEstimate> stableSlotEstimates() {
    final Snapshot s = snapshot;
    final List<SlotEstimate> out = new ArrayList<>();
    for (PromptTemplate t : s.templates()) {
      final Entry e = s.byRef().get(t.ref());
      for (Slot slot : t.spec().slots()) {
        final StableSlotSketch sk = e.stableSketch(slot.name());
        if (sk != null) {
          out.add(new SlotEstimate(t.namespace(), t.name(), slot.name(), sk.estimate()));
        }
      }
    }
    return Collections.unmodifiableList(out);
  }
}
