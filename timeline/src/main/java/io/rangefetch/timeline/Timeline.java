package io.rangefetch.timeline;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rangefetch-timeline}: turns a JDK Flight Recorder recording of a process that read through Rangefetch into
 * what each reader thread and each stream waited on, as a text report (stdout) and, with {@code --svg}, a Gantt
 * chart.
 *
 * <p>Exit codes: 0 when the report was written, also for a recording without rangefetch events (the report says so
 * and how to record them); 2 for bad options and for a file that cannot be read as a recording, or a chart that
 * cannot be written, with a message that says which and why.
 */
@Command(
        name = "rangefetch-timeline",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Reads a JFR recording of Rangefetch's events and reports, per reader thread and per stream, the reads "
                    + "that waited and on what, after the totals: how much of the readers' time went waiting on S3, "
                    + "and on first bytes, transfer, queues, throttling, backoff or another stream's GET.",
            "Record with -XX:StartFlightRecording:filename=rec.jfr,settings=profile (the events are enabled by "
                    + "default)."
        })
public final class Timeline implements Callable<Integer> {
    static final int BAD_INPUT = 2;

    @Parameters(index = "0", paramLabel = "RECORDING", description = "The .jfr file.")
    Path recording;

    @Option(names = "--svg", paramLabel = "FILE", description = "Also draw the timeline as an SVG Gantt chart there.")
    Path svg;

    @Option(
            names = "--threads",
            paramLabel = "REGEX",
            description = "Only the reader threads whose names contain a match, e.g. 'stage 3\\.0' or 'TID 1[0-9]\\)'"
                    + " (GETs, HEADs and the cache's events are the whole process's either way).")
    Pattern threads;

    @Option(
            names = "--top",
            paramLabel = "N",
            defaultValue = "10",
            description = "How many threads and streams to list, most time waited first (default: ${DEFAULT-VALUE}).")
    int top;

    private final PrintStream out;
    private final PrintStream err;

    Timeline(PrintStream out, PrintStream err) {
        this.out = requireNonNull(out, "out is null");
        this.err = requireNonNull(err, "err is null");
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command in this JVM; answers the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine commandLine = new CommandLine(new Timeline(out, err));
        commandLine.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        commandLine.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        int exitCode = commandLine.execute(args);
        out.flush();
        err.flush();
        return exitCode;
    }

    @Override
    public Integer call() {
        if (top < 1) {
            return fail("--top must be at least 1, was " + top);
        }
        Events events;
        try {
            events = RecordingReader.read(recording);
        } catch (IOException e) {
            return fail(e.getMessage());
        }
        if (events.isEmpty()) {
            out.print(noEvents(recording));
            return 0;
        }
        Predicate<String> readerThreads =
                threads == null ? name -> true : name -> threads.matcher(name).find();
        Analysis analysis = Analysis.of(events, readerThreads);
        String source = recording.getFileName().toString();
        out.print(TextReport.render(analysis, source, top));
        if (svg != null) {
            try {
                SvgGantt.write(analysis, source, svg);
            } catch (IOException e) {
                return fail("cannot write the chart to " + svg + ": " + e);
            }
            out.println();
            out.println("Chart: " + svg);
        }
        return 0;
    }

    static String noEvents(Path recording) {
        return String.join(
                "\n",
                "No rangefetch events in " + recording + ".",
                "Was the recording started with the rangefetch events enabled, in the JVM that read through"
                        + " Rangefetch?",
                "They are enabled by default, so -XX:StartFlightRecording:filename=rec.jfr,settings=profile records"
                        + " them;",
                "a custom .jfc must not disable the \"rangefetch.*\" events. In Spark the reads happen in the"
                        + " executors:",
                "give the option in spark.executor.extraJavaOptions (spark.driver.extraJavaOptions records the"
                        + " driver only).",
                "");
    }

    private int fail(String message) {
        err.println("rangefetch-timeline: " + message);
        return BAD_INPUT;
    }
}
