package io.rangefetch.timeline;

import static io.rangefetch.timeline.Figures.bytes;
import static io.rangefetch.timeline.Figures.count;
import static io.rangefetch.timeline.Figures.duration;
import static io.rangefetch.timeline.Figures.format;
import static io.rangefetch.timeline.Figures.offset;
import static java.util.Objects.requireNonNull;

import io.rangefetch.timeline.Analysis.ThreadReads;
import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.ReadWait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The timeline as an SVG Gantt chart: time across (seconds from the first rangefetch event), one row per reader
 * thread with a bar per read that waited, split into its phases ({@link WaitSplit}, the report's own split), and
 * below them the GETs, a row per sending thread, each bar from the send to the body's end with the part before the
 * first byte lighter and the colour saying why the GET was sent. Every bar carries a tooltip ({@code <title>}) with
 * its figures.
 *
 * <p>Design: hand-written SVG, rectangles and text. No charting library: xchart, which the benchmarks' charts use,
 * has no Gantt chart, and a Gantt chart is little more than rectangles on a time axis. The size is bounded so a
 * browser opens it: at most {@value #READER_ROWS} reader rows (the threads that waited most, drawn in the order they
 * first waited) and {@value #GET_ROWS} GET rows, and a line says what was left out. GETs of one thread overlap (an
 * event loop ends many at once), so a thread's GETs are packed into as many rows as it needs, each GET in the first
 * row free at its start.
 *
 * <p>Elements the tests count have classes: a row is a {@code g} of class {@code row reader} or {@code row get}, a
 * read's bar a {@code g} of class {@code wait}, a GET's a {@code g} of class {@code get}.
 */
final class SvgGantt {
    static final int READER_ROWS = 60;
    static final int GET_ROWS = 40;

    private static final int WIDTH = 1200;
    private static final int LABEL_WIDTH = 280;
    private static final int PLOT_LEFT = LABEL_WIDTH + 10;
    private static final int PLOT_RIGHT = WIDTH - 20;
    private static final int ROW = 18;
    private static final int BAR = 12;
    // about what fits in LABEL_WIDTH at the labels' 11 px monospace
    private static final int LABEL_CHARS = 42;
    // apart from the phases' colours, so a GET's bar is never read as a phase of a wait
    private static final String UNKNOWN_CAUSE_COLOUR = "#555555";
    private static final Map<String, String> CAUSE_COLOURS = Map.of(
            "demand", "#17becf",
            "vectored", "#1f77b4",
            "sequential prefetch", "#ff7f0e",
            "stride prefetch", "#ffbb78",
            "format prediction", "#e377c2",
            "caller prefetch", "#f7b6d2",
            "small object", "#bcbd22",
            "footer", "#7b4173",
            "first read", "#393b79");
    // a bar's segments are proportions of its wait, not times: drawn in the order a GET goes through the phases
    static final List<Phase> BAR_ORDER = List.of(
            Phase.QUEUE, Phase.THROTTLE, Phase.FIRST_BYTE, Phase.TRANSFER, Phase.BACKOFF, Phase.JOINED, Phase.OTHER);

    private final Analysis analysis;
    private final long origin;
    private final double nanosPerPixel;
    private final StringBuilder body = new StringBuilder();
    private int y;

    private SvgGantt(Analysis analysis) {
        this.analysis = requireNonNull(analysis, "analysis is null");
        this.origin = analysis.origin();
        // at least a millisecond across, so a recording of one instant still draws
        long span = Math.max(1_000_000L, analysis.events().last() - origin);
        this.nanosPerPixel = (double) span / (PLOT_RIGHT - PLOT_LEFT);
    }

    /** Writes the chart of {@code analysis} to {@code file}. */
    static void write(Analysis analysis, String source, Path file) throws IOException {
        requireNonNull(file, "file is null");
        Files.writeString(file, render(analysis, source), StandardCharsets.UTF_8);
    }

    /** The chart of {@code analysis}, as an SVG document. */
    static String render(Analysis analysis, String source) {
        requireNonNull(source, "source is null");
        return new SvgGantt(analysis).draw(source);
    }

    private String draw(String source) {
        y = 50;
        List<String> leftOut = new ArrayList<>();
        readerRows(leftOut);
        getRows(leftOut);
        int plotBottom = y;
        for (String note : leftOut) {
            y += ROW;
            text(10, y, "note", note);
        }
        y += ROW;
        legend();
        int height = y + 10;

        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append(format(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                WIDTH, height, WIDTH, height));
        svg.append("<style>text { font: 11px sans-serif; fill: #222; } .label { font-family: monospace; }"
                + " .heading { font-weight: bold; } .tick { fill: #666; } .note { fill: #a33; }</style>\n");
        svg.append(format("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, height));
        svg.append(format(
                "<text x=\"10\" y=\"18\" class=\"heading\">%s</text>\n",
                escape(format(
                        "Rangefetch timeline of %s: %s, %s",
                        source,
                        count(analysis.threads().size(), "reader thread"),
                        count(analysis.events().gets().size(), "GET")))));
        axis(svg, plotBottom);
        svg.append(body);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private void axis(StringBuilder svg, int plotBottom) {
        double spanSeconds = (PLOT_RIGHT - PLOT_LEFT) * nanosPerPixel / 1e9;
        double step = niceStep(spanSeconds / 10);
        int decimals = Math.max(0, (int) -Math.floor(Math.log10(step) + 1e-9));
        svg.append("<g class=\"axis\">\n");
        for (int i = 0; i * step <= spanSeconds + step * 1e-6; i++) {
            double x = PLOT_LEFT + i * step * 1e9 / nanosPerPixel;
            svg.append(format(
                    "<line x1=\"%.2f\" y1=\"36\" x2=\"%.2f\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n", x, x, plotBottom));
            svg.append(format(
                    "<text x=\"%.2f\" y=\"32\" class=\"tick\" text-anchor=\"middle\">%s s</text>\n",
                    x, format("%." + decimals + "f", i * step)));
        }
        svg.append("</g>\n");
    }

    /** 1, 2 or 5 times a power of ten, the smallest at least {@code rough}. */
    static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(rough, 1e-9))));
        for (double multiple : new double[] {1, 2, 5, 10}) {
            if (multiple * power >= rough * (1 - 1e-9)) {
                return multiple * power;
            }
        }
        return 10 * power;
    }

    private void readerRows(List<String> leftOut) {
        List<ThreadReads> threads = analysis.threads();
        heading("Reads that waited, by reader thread (most waited " + Math.min(READER_ROWS, threads.size()) + ")");
        List<ThreadReads> drawn = threads.subList(0, Math.min(READER_ROWS, threads.size())).stream()
                .sorted(Comparator.comparingLong(ThreadReads::first).thenComparing(ThreadReads::thread))
                .toList();
        for (ThreadReads thread : drawn) {
            body.append("<g class=\"row reader\">\n");
            label(thread.thread());
            for (ReadWait read : thread.reads()) {
                waitBar(read);
            }
            body.append("</g>\n");
            y += ROW;
        }
        if (threads.size() > READER_ROWS) {
            leftOut.add(format(
                    "%s not drawn (those that waited least; the text report lists them)",
                    count(threads.size() - READER_ROWS, "more reader thread")));
        }
    }

    private void waitBar(ReadWait read) {
        WaitSplit split = WaitSplit.of(read);
        body.append("<g class=\"wait\"><title>")
                .append(escape(format(
                        "%s at %s: waited %s for %s at %d of %s (%s, stream #%d); %s",
                        read.thread(),
                        offset(read.start() - origin),
                        duration(read.duration()),
                        bytes(read.bytes()),
                        read.position(),
                        read.key(),
                        read.kind(),
                        read.stream(),
                        phases(split))))
                .append("</title>");
        double x = x(read.start());
        double width = read.duration() / nanosPerPixel;
        if (width < 1) {
            // too short to split: one pixel in the colour of its largest phase, so it is still seen
            rect(x, 1, split.largest().colour(), split.largest().cssClass(), "");
        } else {
            for (Phase phase : BAR_ORDER) {
                double part = split.get(phase) / nanosPerPixel;
                if (part > 0) {
                    rect(x, part, phase.colour(), phase.cssClass(), "");
                    x += part;
                }
            }
        }
        body.append("</g>\n");
    }

    private void getRows(List<String> leftOut) {
        Map<String, List<GetAttempt>> byThread = analysis.getsByThread();
        y += ROW / 2;
        heading("GETs, by the thread that ended them (lighter: before the first byte; dashed: not complete)");
        int rows = 0;
        int rowsLeftOut = 0;
        int getsLeftOut = 0;
        for (Map.Entry<String, List<GetAttempt>> thread : byThread.entrySet()) {
            List<List<GetAttempt>> lanes = lanes(thread.getValue());
            for (int lane = 0; lane < lanes.size(); lane++) {
                if (rows == GET_ROWS) {
                    rowsLeftOut++;
                    getsLeftOut += lanes.get(lane).size();
                    continue;
                }
                body.append("<g class=\"row get\">\n");
                label(lane == 0 ? thread.getKey() : "");
                for (GetAttempt get : lanes.get(lane)) {
                    getBar(get);
                }
                body.append("</g>\n");
                y += ROW;
                rows++;
            }
        }
        if (rowsLeftOut > 0) {
            leftOut.add(format("%s (%s) not drawn", count(rowsLeftOut, "more GET row"), count(getsLeftOut, "GET")));
        }
    }

    /** Packs GETs (in start order) into rows where none overlaps another. */
    static List<List<GetAttempt>> lanes(List<GetAttempt> gets) {
        List<List<GetAttempt>> lanes = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        for (GetAttempt get : gets) {
            int lane = 0;
            while (lane < lanes.size() && ends.get(lane) > get.start()) {
                lane++;
            }
            if (lane == lanes.size()) {
                lanes.add(new ArrayList<>());
                ends.add(Long.MIN_VALUE);
            }
            lanes.get(lane).add(get);
            ends.set(lane, get.end());
        }
        return lanes;
    }

    private void getBar(GetAttempt get) {
        String colour = CAUSE_COLOURS.getOrDefault(get.cause(), UNKNOWN_CAUSE_COLOUR);
        String outline = get.outcome().equals("complete") ? "" : " stroke=\"#333\" stroke-dasharray=\"2,1\"";
        body.append("<g class=\"get\"><title>")
                .append(escape(format(
                        "%s GET %s bytes=%s at %s: %s, first byte %s, %s of %s received; %s%s%s",
                        get.cause(),
                        get.key(),
                        get.range(),
                        offset(get.start() - origin),
                        duration(get.duration()),
                        get.answered() ? duration(get.firstByte()) : "none",
                        bytes(get.received()),
                        bytes(get.requested()),
                        get.outcome(),
                        get.attempt() > 1 ? ", attempt " + get.attempt() : "",
                        get.hedge() ? ", a hedge" : "")))
                .append("</title>");
        double x = x(get.start());
        double width = Math.max(1, get.duration() / nanosPerPixel);
        // no answer: the whole GET waited for one
        double head = get.answered() ? Math.min(width, get.firstByte() / nanosPerPixel) : width;
        if (head > 0) {
            rect(x, head, colour, "get-first-byte", " fill-opacity=\"0.4\"" + outline);
        }
        if (width - head > 0) {
            rect(x + head, width - head, colour, "get-body", outline);
        }
        body.append("</g>\n");
    }

    private void legend() {
        heading("Legend");
        y += ROW / 2;
        double x = 10;
        for (Phase phase : BAR_ORDER) {
            x = legendItem(x, phase.colour(), "read waiting: " + phase.label());
        }
        y += ROW;
        x = 10;
        for (String cause : analysis.gets().byCause().keySet()) {
            x = legendItem(x, CAUSE_COLOURS.getOrDefault(cause, UNKNOWN_CAUSE_COLOUR), "GET for " + cause);
        }
        y += ROW;
    }

    // one swatch and its label; wraps to the next line when the item would pass the right edge
    private double legendItem(double x, String colour, String label) {
        double width = 20 + label.length() * 6.2 + 16;
        if (x + width > WIDTH - 10 && x > 10) {
            y += ROW;
            x = 10;
        }
        body.append(format(
                "<rect class=\"swatch\" x=\"%.2f\" y=\"%d\" width=\"12\" height=\"%d\" fill=\"%s\"/>",
                x, y - BAR + 2, BAR, colour));
        body.append(format("<text x=\"%.2f\" y=\"%d\">%s</text>\n", x + 16, y, escape(label)));
        return x + width;
    }

    private void heading(String heading) {
        y += ROW / 2;
        text(10, y, "heading", heading);
        y += ROW / 2;
    }

    // the row's label, cut from the left to fit: a task thread's name ends with what tells it apart
    private void label(String name) {
        String shown = name.length() <= LABEL_CHARS ? name : "\u2026" + name.substring(name.length() - LABEL_CHARS + 1);
        body.append(format("<text x=\"10\" y=\"%d\" class=\"label\"><title>", y + BAR - 2))
                .append(escape(name))
                .append("</title>")
                .append(escape(shown))
                .append("</text>\n");
    }

    private void text(int x, int y, String cssClass, String text) {
        body.append(format("<text x=\"%d\" y=\"%d\" class=\"%s\">%s</text>\n", x, y, cssClass, escape(text)));
    }

    private void rect(double x, double width, String colour, String cssClass, String extra) {
        body.append(format(
                "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s/>",
                cssClass, x, y, width, BAR, colour, extra));
    }

    private double x(long time) {
        return PLOT_LEFT + (time - origin) / nanosPerPixel;
    }

    private static String phases(WaitSplit split) {
        StringBuilder text = new StringBuilder();
        for (Phase phase : Phase.values()) {
            if (split.get(phase) > 0) {
                text.append(text.length() == 0 ? "" : ", ")
                        .append(duration(split.get(phase)))
                        .append(' ')
                        .append(phase.label());
            }
        }
        return text.toString();
    }

    /**
     * {@code text} as XML character data or an attribute's value: markup characters escaped, and the control
     * characters XML 1.0 forbids (a thread may be named anything) replaced.
     */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> escaped.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '\uFFFD' : c);
            }
        }
        return escaped.toString();
    }
}
