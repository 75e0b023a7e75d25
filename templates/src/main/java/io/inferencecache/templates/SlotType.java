package io.inferencecache.templates;

/**
 * Whether a slot's text is the same across requests ({@link #STABLE}: part of the cacheable prompt
 * prefix) or changes per request ({@link #MUTABLE}: the stable prefix ends at the first one).
 */
public enum SlotType {
  STABLE("Stable"),
  MUTABLE("Mutable");

  private final String wireName;

  SlotType(final String wireName) {
    this.wireName = wireName;
  }

  /** The spelling in the custom resource and the JSON body: {@code Stable} or {@code Mutable}. */
  public String wireName() {
    return wireName;
  }

  /**
   * The type spelled {@code s} exactly ({@code Stable} or {@code Mutable}, case-sensitive, as the
   * CRD's enum); {@code null} for anything else.
   */
  public static SlotType parse(final String s) {
    if ("Stable".equals(s)) {
      return STABLE;
    }
    if ("Mutable".equals(s)) {
      return MUTABLE;
    }
    return null;
  }
}
