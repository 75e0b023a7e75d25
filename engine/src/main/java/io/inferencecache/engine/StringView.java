package io.inferencecache.engine;

import io.inferencecache.engine.internal.StringDictionary;
import org.agrona.DirectBuffer;

/**
 * A reusable reference to a string held either as a {@link String} or as UTF-8 bytes inside a
 * buffer (for example a view into a network buffer). Resolving it against the index's dictionary
 * never allocates. Not thread-safe; owned by one request object.
 */
public final class StringView {
  private String string = "";
  private DirectBuffer buffer;
  private int offset;
  private int length;

  /** Points at a String (null is treated as empty). */
  public StringView set(final String s) {
    string = s == null ? "" : s;
    buffer = null;
    return this;
  }

  /** Points at UTF-8 bytes in {@code buf[offset..offset+length)}; the buffer must stay valid. */
  public StringView set(final DirectBuffer buf, final int offset, final int length) {
    this.string = null;
    this.buffer = buf;
    this.offset = offset;
    this.length = length;
    return this;
  }

  /** Whether the string is empty. */
  public boolean isEmpty() {
    return buffer == null ? string.isEmpty() : length == 0;
  }

  /** The dictionary id, or {@link StringDictionary#MISSING}. */
  int resolve(final StringDictionary dictionary) {
    return buffer == null ? dictionary.idOf(string) : dictionary.idOf(buffer, offset, length);
  }

  /** The value as a String (allocates for a buffer view). */
  @Override
  public String toString() {
    if (buffer == null) {
      return string;
    }
    return buffer.getStringWithoutLengthUtf8(offset, length);
  }
}
