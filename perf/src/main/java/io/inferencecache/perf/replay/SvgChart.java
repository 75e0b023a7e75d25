package io.inferencecache.perf.replay;

import java.util.Locale;

/**
 * The SVG pieces the simulators' plots ({@link FleetGridPlot}, {@link PdPlot}) draw with: the
 * document, a titled panel frame, grid lines with their labels, lines and legend entries. Each
 * appends to the caller's builder.
 */
final class SvgChart {
  private SvgChart() {}

  /** Opens a white document of {@code width × height} with a bold title at ({@code x}, 22). */
  static StringBuilder open(final int width, final int height, final int x, final String title) {
    return new StringBuilder(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n"
                + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"
                + "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
            width,
            height,
            x,
            title));
  }

  static String close(final StringBuilder b) {
    return b.append("</svg>\n").toString();
  }

  /** A panel's frame at ({@code x0}, {@code y0}) with its title above it. */
  static void frame(
      final StringBuilder b,
      final int x0,
      final int y0,
      final int w,
      final int h,
      final String title) {
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n"
                + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                + " stroke=\"black\"/>%n",
            x0,
            y0 - 6,
            title,
            x0,
            y0,
            w,
            h));
  }

  /** A horizontal grid line across the panel at {@code y}, labelled left of it. */
  static void yGrid(
      final StringBuilder b, final int x0, final int w, final double y, final String label) {
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
            x0,
            y,
            x0 + w,
            y,
            x0 - 4,
            y + 4,
            label));
  }

  /** A label centred under the panel at {@code x}. */
  static void xLabel(final StringBuilder b, final double x, final int y, final String label) {
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
            x,
            y,
            label));
  }

  /** A line through {@code points} ("x,y x,y …"). */
  static void line(
      final StringBuilder b, final String points, final String color, final String width) {
    b.append(
        String.format(
            Locale.ROOT,
            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"/>%n",
            points.trim(),
            color,
            width));
  }

  /** A legend entry: a short thick line of {@code color} at ({@code x}, {@code y}), then text. */
  static void legend(
      final StringBuilder b, final int x, final int y, final String color, final String label) {
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>%n",
            x,
            y,
            x + 25,
            y,
            color,
            x + 32,
            y + 4,
            label));
  }
}
