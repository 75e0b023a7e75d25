package io.inferencecache.perf.replay;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** A PNG line chart of TTFT p90 against offered load, one line per policy (Java2D, headless). */
final class FleetPlot {
  private static final int W = 960;
  private static final int H = 600;
  private static final int LEFT = 90;
  private static final int RIGHT = 250;
  private static final int TOP = 50;
  private static final int BOTTOM = 70;
  private static final Color[] COLORS = {
    new Color(0xD62728),
    new Color(0x2CA02C),
    new Color(0x9467BD),
    new Color(0x7F7F7F),
    new Color(0xFF7F0E),
    new Color(0x1F77B4),
    new Color(0x8C564B),
  };

  private FleetPlot() {}

  static void write(final FleetSimulator.Report report, final Path path) throws IOException {
    System.setProperty("java.awt.headless", "true");
    final List<Map.Entry<Double, List<FleetResult>>> rows = report.rows();
    double minX = Double.MAX_VALUE;
    double maxX = -Double.MAX_VALUE;
    double maxY = 0;
    for (Map.Entry<Double, List<FleetResult>> row : rows) {
      minX = Math.min(minX, row.getKey());
      maxX = Math.max(maxX, row.getKey());
      for (FleetResult r : row.getValue()) {
        maxY = Math.max(maxY, r.ttftP90Ms());
      }
    }
    if (maxX == minX) {
      minX -= 0.1;
      maxX += 0.1;
    }
    final double yStep = niceStep(maxY / 6);
    final double yTop = Math.max(yStep, Math.ceil(maxY / yStep) * yStep);

    final BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    final Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, W, H);
      final int plotW = W - LEFT - RIGHT;
      final int plotH = H - TOP - BOTTOM;
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
      g.setColor(Color.BLACK);
      g.drawString(
          "TTFT p90 vs offered load (simulated fleet, Mooncake conversation trace)", LEFT, 30);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      for (double y = 0; y <= yTop + 1e-9; y += yStep) {
        final int py = TOP + plotH - (int) Math.round(y / yTop * plotH);
        g.setColor(new Color(0xE0E0E0));
        g.drawLine(LEFT, py, LEFT + plotW, py);
        g.setColor(Color.DARK_GRAY);
        g.drawString(String.format(Locale.ROOT, "%,.0f", y), LEFT - 60, py + 4);
      }
      for (Map.Entry<Double, List<FleetResult>> row : rows) {
        final int px = LEFT + (int) Math.round((row.getKey() - minX) / (maxX - minX) * plotW);
        g.setColor(new Color(0xE0E0E0));
        g.drawLine(px, TOP, px, TOP + plotH);
        g.setColor(Color.DARK_GRAY);
        g.drawString(
            String.format(Locale.ROOT, "%.0f %%", row.getKey() * 100), px - 14, TOP + plotH + 20);
      }
      g.setColor(Color.BLACK);
      g.drawRect(LEFT, TOP, plotW, plotH);
      g.drawString("offered load", LEFT + plotW / 2 - 35, H - 25);
      g.rotate(-Math.PI / 2);
      g.drawString("TTFT p90 (ms)", -(TOP + plotH / 2 + 40), 25);
      g.rotate(Math.PI / 2);

      final int policies = rows.get(0).getValue().size();
      for (int p = 0; p < policies; p++) {
        final Color c = COLORS[p % COLORS.length];
        g.setColor(c);
        g.setStroke(new BasicStroke(2.5f));
        int lastX = -1;
        int lastY = -1;
        for (Map.Entry<Double, List<FleetResult>> row : rows) {
          final FleetResult r = row.getValue().get(p);
          final int px = LEFT + (int) Math.round((row.getKey() - minX) / (maxX - minX) * plotW);
          final int py = TOP + plotH - (int) Math.round(r.ttftP90Ms() / yTop * plotH);
          if (lastX >= 0) {
            g.drawLine(lastX, lastY, px, py);
          }
          g.fillOval(px - 4, py - 4, 8, 8);
          lastX = px;
          lastY = py;
        }
        final int ly = TOP + 20 + p * 24;
        g.drawLine(LEFT + plotW + 20, ly, LEFT + plotW + 50, ly);
        g.setColor(Color.BLACK);
        g.drawString(rows.get(0).getValue().get(p).policy().label, LEFT + plotW + 58, ly + 4);
      }
    } finally {
      g.dispose();
    }
    ImageIO.write(img, "png", path.toFile());
  }

  private static double niceStep(final double raw) {
    if (raw <= 0) {
      return 1;
    }
    final double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    final double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }
}
