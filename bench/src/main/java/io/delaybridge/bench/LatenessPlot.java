package io.delaybridge.bench;

import java.util.List;
import java.util.Locale;

/** Lateness percentiles against the due rate, as a self-contained SVG (log-scale y axis, no dependencies). */
final class LatenessPlot {

    private static final int WIDTH = 720;
    private static final int HEIGHT = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 150;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;
    private static final String[] NAMES = {"p50", "p99", "p99.9", "max"};
    private static final String[] COLOURS = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a"};

    private LatenessPlot() {}

    /** Each row: due rate (records/s), p50, p99, p99.9, max (ms), delivered rate. */
    static String svg(List<double[]> rows) {
        double maxRate = rows.stream().mapToDouble(r -> r[0]).max().orElse(1) * 1.05;
        double maxMs = Math.max(10, rows.stream().mapToDouble(r -> r[4]).max().orElse(10));
        double logMax = Math.ceil(Math.log10(maxMs));
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH,
                HEIGHT));
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"22\" font-size=\"14\">delay-bridge lateness against "
                        + "due rate (200-byte records, delays 1-5 s, one 2-core machine)</text>%n",
                LEFT - 40));
        // y grid: decades from 1 ms (0 ms plotted at 1 ms)
        for (int d = 0; d <= logMax; d++) {
            double y = TOP + plotH - plotH * d / logMax;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s ms</text>%n",
                    LEFT,
                    y,
                    LEFT + plotW,
                    y,
                    LEFT - 6,
                    y + 4,
                    String.format(Locale.ROOT, "%,d", (long) Math.pow(10, d))));
        }
        for (double[] row : rows) {
            double x = LEFT + plotW * row[0] / maxRate;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%sk</text>%n",
                    x,
                    TOP,
                    x,
                    TOP + plotH,
                    x,
                    TOP + plotH + 16,
                    new java.math.BigDecimal(row[0] / 1000).stripTrailingZeros().toPlainString()));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">records due per second" + "</text>%n",
                LEFT + plotW / 2,
                HEIGHT - 12));
        s.append(String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" " + "stroke=\"#333\"/>%n",
                LEFT,
                TOP,
                plotW,
                plotH));
        for (int k = 0; k < NAMES.length; k++) {
            StringBuilder points = new StringBuilder();
            for (double[] row : rows) {
                double x = LEFT + plotW * row[0] / maxRate;
                double y = TOP + plotH - plotH * Math.log10(Math.max(1, row[k + 1])) / logMax;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                s.append(String.format(
                        Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y, COLOURS[k]));
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" " + "stroke-width=\"2\"/>%n",
                    points.toString().trim(),
                    COLOURS[k]));
            int ly = TOP + 20 + 20 * k;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            + "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
                    LEFT + plotW + 15,
                    ly,
                    LEFT + plotW + 40,
                    ly,
                    COLOURS[k],
                    LEFT + plotW + 46,
                    ly + 4,
                    NAMES[k]));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" fill=\"#666\">0 ms is drawn at 1 ms</text>%n",
                LEFT + plotW + 10,
                TOP + 110));
        s.append("</svg>\n");
        return s.toString();
    }
}
