package io.inferencecache.templates;

/**
 * UTF-8 length and encoding of a {@link String} straight into a caller's array, byte for byte what
 * {@code String.getBytes(UTF_8)} gives (an unpaired surrogate becomes {@code '?'}), without the
 * intermediate array.
 */
final class Utf8 {
  private Utf8() {}

  /** The UTF-8 length of {@code s}. */
  static int length(final String s) {
    final int n = s.length();
    int bytes = n;
    for (int i = 0; i < n; i++) {
      final char c = s.charAt(i);
      if (c < 0x80) {
        continue;
      }
      if (c < 0x800) {
        bytes += 1;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 2; // 4 bytes for 2 chars
        i++;
      } else if (Character.isSurrogate(c)) {
        // unpaired: '?', one byte for one char
      } else {
        bytes += 2;
      }
    }
    return bytes;
  }

  /** Writes {@code s} as UTF-8 at {@code pos}; returns the position after it. */
  static int encode(final String s, final byte[] dst, final int pos) {
    int p = pos;
    final int n = s.length();
    for (int i = 0; i < n; i++) {
      final char c = s.charAt(i);
      if (c < 0x80) {
        dst[p++] = (byte) c;
      } else if (c < 0x800) {
        dst[p++] = (byte) (0xC0 | (c >> 6));
        dst[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        final int cp = Character.toCodePoint(c, s.charAt(++i));
        dst[p++] = (byte) (0xF0 | (cp >> 18));
        dst[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        dst[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        dst[p++] = (byte) (0x80 | (cp & 0x3F));
      } else if (Character.isSurrogate(c)) {
        dst[p++] = (byte) '?';
      } else {
        dst[p++] = (byte) (0xE0 | (c >> 12));
        dst[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        dst[p++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return p;
  }
}
