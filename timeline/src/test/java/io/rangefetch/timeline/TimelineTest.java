package io.rangefetch.timeline;

import static io.rangefetch.timeline.SampleRecording.BUCKET;
import static io.rangefetch.timeline.SampleRecording.EVENT_LOOP;
import static io.rangefetch.timeline.SampleRecording.FETCHER;
import static io.rangefetch.timeline.SampleRecording.KIB;
import static io.rangefetch.timeline.SampleRecording.MIB;
import static io.rangefetch.timeline.SampleRecording.MICROS;
import static io.rangefetch.timeline.SampleRecording.MILLIS;
import static io.rangefetch.timeline.SampleRecording.OTHER_READER;
import static io.rangefetch.timeline.SampleRecording.READER;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.rangefetch.timeline.Analysis.StreamReads;
import io.rangefetch.timeline.Analysis.ThreadReads;
import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.ReadWait;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The command end to end, on a recording of core's own event classes ({@link SampleRecording}): what the reader
 * loads, the totals and groupings of the analysis, the text report, the chart, and the exit codes.
 */
class TimelineTest {
    @TempDir
    static Path directory;

    private static Path sample;
    private static Events events;

    @BeforeAll
    static void record() throws Exception {
        sample = directory.resolve("sample.jfr");
        SampleRecording.record(sample);
        events = RecordingReader.read(sample);
    }

    @Test
    void theReaderLoadsEveryRangefetchEventWithItsFields() {
        assertThat(events.gets()).hasSize(7);
        assertThat(events.waits()).hasSize(4);
        assertThat(events.metadata()).hasSize(3);
        assertThat(events.opened()).hasSize(3);
        assertThat(events.closed()).hasSize(2);
        assertThat(events.wasted()).hasSize(3);
        assertThat(events.evictions()).hasSize(3);
        assertThat(events.budgetFull()).hasSize(1);
        assertThat(events.governorChanges()).hasSize(2);

        ReadWait first = events.waits().get(0);
        assertThat(first.thread()).isEqualTo(READER);
        assertThat(first.stream()).isEqualTo(1);
        assertThat(first.bucket()).isEqualTo(BUCKET);
        assertThat(first.key()).isEqualTo("data/a.parquet");
        assertThat(first.kind()).isEqualTo("first");
        assertThat(first.bytes()).isEqualTo(8 * KIB);
        assertThat(first.waitedOn()).isEqualTo("first byte");
        assertThat(List.of(first.queue(), first.throttle(), first.firstByte(), first.transfer(), first.backoff()))
                .containsExactly(10 * MICROS, 0L, 200 * MICROS, 100 * MICROS, 0L);
        assertThat(first.joined()).isFalse();
        assertThat(events.waits()).filteredOn(ReadWait::joined).hasSize(1);

        GetAttempt footer = events.gets().stream()
                .filter(get -> get.cause().equals("footer"))
                .findFirst()
                .orElseThrow();
        assertThat(footer.thread()).isEqualTo(FETCHER);
        assertThat(footer.firstByte()).as("no answer").isEqualTo(-1);
        assertThat(footer.answered()).isFalse();
        assertThat(footer.outcome()).isEqualTo("failed");
        assertThat(footer.range()).isEqualTo("0-" + (16 * KIB - 1));

        assertThat(events.recordingStart()).isLessThanOrEqualTo(events.first());
        assertThat(events.recordingEnd()).isGreaterThanOrEqualTo(events.last());
        assertThat(events.waits()).isSortedAccordingTo((a, b) -> Long.compare(a.start(), b.start()));
    }

    @Test
    void theTotalsCountTheGetsByCauseAndOutcomeAndSplitTheWaitsByPhase() {
        Analysis analysis = Analysis.of(events, name -> true);

        assertThat(analysis.gets().count()).isEqualTo(7);
        assertThat(analysis.gets().byCause())
                .containsExactly(
                        entry("demand", 3L),
                        entry("sequential prefetch", 2L),
                        entry("footer", 1L),
                        entry("format prediction", 1L));
        assertThat(analysis.gets().byOutcome())
                .containsExactly(
                        entry("complete", 4L), entry("failed", 1L), entry("hedge lost", 1L), entry("throttled", 1L));
        assertThat(analysis.gets().hedges()).isEqualTo(1);
        assertThat(analysis.gets().retries()).isEqualTo(1);
        assertThat(analysis.gets().requested()).isEqualTo(8 * KIB + MIB + MIB + 4 * KIB + 4 * KIB + 16 * KIB + 2 * MIB);
        assertThat(analysis.gets().received()).isEqualTo(8 * KIB + MIB + 64 * KIB + 4 * KIB + 2 * MIB);
        assertThat(analysis.gets().firstByte(0.5)).isEqualTo(OptionalLong.of(20 * MILLIS));
        assertThat(analysis.gets().firstByte(0.9)).isEqualTo(OptionalLong.of(50 * MILLIS));
        assertThat(analysis.metadata().get("HEAD").count()).isEqualTo(2);
        assertThat(analysis.metadata().get("LIST").count()).isEqualTo(1);
        assertThat(analysis.wastedByCause())
                .containsExactly(entry("sequential prefetch", 2 * MIB), entry("format prediction", 512 * KIB));

        // the joined read's own phases are not the reader's GETs': its whole wait is "another stream's GET"
        WaitSplit waited = analysis.waited();
        assertThat(waited.get(Phase.QUEUE)).isEqualTo(510 * MICROS);
        assertThat(waited.get(Phase.THROTTLE)).isEqualTo(150 * MICROS);
        assertThat(waited.get(Phase.FIRST_BYTE)).isEqualTo(200 * MICROS);
        assertThat(waited.get(Phase.TRANSFER)).isEqualTo(400 * MICROS);
        assertThat(waited.get(Phase.BACKOFF)).isEqualTo(320 * MICROS);
        ReadWait joined =
                events.waits().stream().filter(ReadWait::joined).findFirst().orElseThrow();
        assertThat(waited.get(Phase.JOINED)).isEqualTo(joined.duration());
        assertThat(waited.total())
                .as("every nanosecond of every wait in one phase")
                .isEqualTo(events.waits().stream().mapToLong(ReadWait::duration).sum());
    }

    @Test
    void readsAreGroupedByTheThreadThatWaitedInTimeOrder() {
        Analysis analysis = Analysis.of(events, name -> true);

        assertThat(analysis.threads()).extracting(ThreadReads::thread).containsExactlyInAnyOrder(READER, OTHER_READER);
        ThreadReads reader = thread(analysis, READER);
        assertThat(reader.reads()).extracting(ReadWait::kind).containsExactly("first", "streaming", "positioned");
        assertThat(reader.reads()).allMatch(read -> read.thread().equals(READER));
        assertThat(reader.span()).isGreaterThanOrEqualTo(reader.waited());
        assertThat(thread(analysis, OTHER_READER).reads())
                .singleElement()
                .satisfies(read -> assertThat(read.stream()).isEqualTo(3));
        assertThat(analysis.busy())
                .isEqualTo(reader.span() + thread(analysis, OTHER_READER).span());
        assertThat(analysis.getsByThread()).containsOnlyKeys(FETCHER, EVENT_LOOP);
        assertThat(analysis.getsByThread().get(FETCHER)).hasSize(6);
    }

    @Test
    void streamsGatherTheirOpenTheirCloseAndTheirReads() {
        Analysis analysis = Analysis.of(events, name -> true);

        assertThat(analysis.streams()).extracting(StreamReads::stream).containsExactlyInAnyOrder(1L, 2L, 3L);
        StreamReads first = stream(analysis, 1);
        assertThat(first.key()).isEqualTo("data/a.parquet");
        assertThat(first.reads()).hasSize(3);
        assertThat(first.closed()).hasValueSatisfying(closed -> {
            assertThat(closed.bytesRead()).isEqualTo(3 * MIB);
            assertThat(closed.reads()).isEqualTo(7);
        });
        assertThat(first.openFor()).isPresent();
        assertThat(stream(analysis, 2).reads()).isEmpty();
        StreamReads third = stream(analysis, 3);
        assertThat(third.opened()).isPresent();
        assertThat(third.closed()).isEmpty();
        assertThat(third.openFor()).isEmpty();
        assertThat(analysis.streams().get(0).waited())
                .isGreaterThanOrEqualTo(analysis.streams().get(1).waited());

        Analysis oneThread = Analysis.of(events, name -> name.contains("TID 11"));
        assertThat(oneThread.threads()).extracting(ThreadReads::thread).containsExactly(READER);
        assertThat(oneThread.threadsLeftOut()).isEqualTo(1);
        assertThat(oneThread.streams())
                .as("the streams opened or read on the chosen thread")
                .extracting(StreamReads::stream)
                .containsExactlyInAnyOrder(1L, 2L);
        assertThat(oneThread.gets().count()).as("GETs are the process's").isEqualTo(7);
    }

    @Test
    void theReportOpensWithTheTotalsThenListsThreadsAndStreams() {
        Run run = run(sample.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("Rangefetch timeline of sample.jfr");
        assertThat(lines.get(1)).startsWith("Recording: ");
        assertThat(lines.get(2)).isEqualTo("Reads: 2 reader threads waited, in 4 reads");
        assertThat(lines.get(3)).startsWith("  of 2 threads' ").contains(" between their first and last read, ");
        assertThat(lines.get(4))
                .startsWith("  0.20 ms first bytes, 0.40 ms transfer, 0.51 ms scheduler queue, 0.15 ms throttle, "
                        + "0.32 ms backoff, ")
                .contains(" another stream's GET, ")
                .endsWith(" other");
        assertThat(lines.get(5))
                .isEqualTo("GETs: 7 (1 hedge, 1 retry); 4.0 MiB requested, 3.1 MiB received; "
                        + "first byte median 20 ms, p90 50 ms");
        assertThat(lines.get(6))
                .isEqualTo("  by cause:   demand 3, sequential prefetch 2, footer 1, format prediction 1");
        assertThat(lines.get(7)).isEqualTo("  by outcome: complete 4, failed 1, hedge lost 1, throttled 1");
        assertThat(lines.get(8)).startsWith("HEADs: 2 in ").contains("; LISTs: 1 in ");
        assertThat(lines.get(9))
                .isEqualTo(
                        "Prefetched bytes wasted: 2.5 MiB (sequential prefetch 2.0 MiB, format prediction 512.0 KiB)");
        assertThat(lines.get(10)).isEqualTo("Cache: 3 evictions (3.0 MiB); budget full 1 time");
        assertThat(lines.get(11))
                .startsWith("Throttle limit changes: 2 (bkt 64 -> 32 at ")
                .contains("; bkt 32 -> 48 at ");

        assertThat(lines).contains("Reader threads, most time waited first (2 of 2):", READER, OTHER_READER);
        assertThat(lines)
                .anySatisfy(line ->
                        assertThat(line).contains("#1", "first", "8.0 KiB", "first byte", "s3://bkt/data/a.parquet"))
                .anySatisfy(line -> assertThat(line).contains("#1", "positioned", "another stream's GET"))
                .anySatisfy(line -> assertThat(line).contains("#3", "positioned", "2.0 MiB", "scheduler queue"));
        assertThat(lines).contains("Streams, most time waited first (3 of 3):");
        assertThat(lines)
                .anySatisfy(line -> assertThat(line).contains("#1", "3.0 MiB", "s3://bkt/data/a.parquet"))
                .anySatisfy(line -> assertThat(line).contains("#3", "still open", "s3://bkt/data/c.parquet"));
    }

    @Test
    void topAndThreadsNarrowTheListing() {
        Run top = run("--top", "1", sample.toString());
        assertThat(top.exitCode()).isZero();
        assertThat(top.out())
                .contains("Reader threads, most time waited first (1 of 2):")
                .contains("Streams, most time waited first (1 of 3):")
                .contains("  ... and 2 more streams");

        Run threads = run("--threads", "TID 11\\)", sample.toString());
        assertThat(threads.exitCode()).isZero();
        assertThat(threads.out())
                .contains("Reads: 1 reader thread waited, in 3 reads (--threads left out 1 other)")
                .doesNotContain(OTHER_READER);
    }

    @Test
    void theChartIsSvgWithARowPerReaderAndPerSendingThreadAndABarPerReadAndPerGet() throws Exception {
        Path svg = directory.resolve("timeline.svg");
        Run run = run("--svg", svg.toString(), sample.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Chart: " + svg);
        Document document = parse(svg);
        assertThat(document.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(groups(document, "row reader")).hasSize(2);
        assertThat(groups(document, "wait")).hasSize(4);
        assertThat(groups(document, "row get"))
                .as("each sending thread's GETs one after another: one row each")
                .hasSize(2);
        assertThat(groups(document, "get")).hasSize(7);
        // a bar per phase with time in it: the joined read's one bar, the others' phases and "other"
        assertThat(rects(document, Phase.JOINED.cssClass())).hasSize(1);
        assertThat(rects(document, Phase.FIRST_BYTE.cssClass())).hasSize(1);
        assertThat(rects(document, Phase.QUEUE.cssClass())).hasSize(2);
        assertThat(rects(document, "get-first-byte"))
                .as("every GET waited for its head, or for none")
                .hasSize(7);
        assertThat(labels(document)).contains(READER, OTHER_READER, FETCHER, EVENT_LOOP);
    }

    @Test
    void aMissingFileIsABadArgument() {
        Path missing = directory.resolve("missing.jfr");
        Run run = run(missing.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("rangefetch-timeline: " + missing + ": no such file\n");
    }

    @Test
    void aFileThatIsNotARecordingOrADirectoryIsABadArgument() throws IOException {
        Path text = Files.writeString(directory.resolve("notes.jfr"), "not a recording\n");
        Run notRecording = run(text.toString());
        assertThat(notRecording.exitCode()).isEqualTo(2);
        assertThat(notRecording.err()).startsWith("rangefetch-timeline: " + text + " is not a JFR recording");

        Run folder = run(directory.toString());
        assertThat(folder.exitCode()).isEqualTo(2);
        assertThat(folder.err()).contains("is a directory");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(run("--top", "0", sample.toString()).exitCode()).isEqualTo(2);
        assertThat(run("--top", "0", sample.toString()).err()).contains("--top must be at least 1, was 0");
        assertThat(run("--threads", "(", sample.toString()).exitCode()).isEqualTo(2);
        assertThat(run().exitCode()).isEqualTo(2);
        assertThat(run("--help").exitCode()).isZero();
    }

    @Name("test.Unrelated")
    static final class UnrelatedEvent extends Event {}

    @Test
    void aRecordingWithoutRangefetchEventsSaysSoAndHowToRecordThem() throws Exception {
        Path unrelated = directory.resolve("unrelated.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(UnrelatedEvent.class);
            recording.start();
            new UnrelatedEvent().commit();
            recording.stop();
            recording.dump(unrelated);
        }
        Path svg = directory.resolve("unrelated.svg");
        Run run = run("--svg", svg.toString(), unrelated.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .startsWith("No rangefetch events in " + unrelated + ".")
                .contains("-XX:StartFlightRecording:filename=rec.jfr,settings=profile");
        assertThat(svg).doesNotExist();
    }

    private static ThreadReads thread(Analysis analysis, String name) {
        return analysis.threads().stream()
                .filter(thread -> thread.thread().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static StreamReads stream(Analysis analysis, long id) {
        return analysis.streams().stream()
                .filter(stream -> stream.stream() == id)
                .findFirst()
                .orElseThrow();
    }

    record Run(int exitCode, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exitCode = Timeline.run(args, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
        return new Run(exitCode, out.toString(UTF_8), err.toString(UTF_8));
    }

    static Document parse(Path svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(svg.toFile());
    }

    static List<Element> groups(Document document, String cssClass) {
        return elements(document, "g", cssClass);
    }

    static List<Element> rects(Document document, String cssClass) {
        return elements(document, "rect", cssClass);
    }

    static List<Element> elements(Document document, String tag, String cssClass) {
        NodeList nodes = document.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element element = (Element) nodes.item(i);
            if (element.getAttribute("class").equals(cssClass)) {
                found.add(element);
            }
        }
        return found;
    }

    /** The row labels' full names (their tooltips: a label may be cut to fit). */
    static List<String> labels(Document document) {
        return elements(document, "text", "label").stream()
                .map(label -> label.getElementsByTagNameNS("http://www.w3.org/2000/svg", "title")
                        .item(0)
                        .getTextContent())
                .filter(name -> !name.isEmpty())
                .collect(Collectors.toList());
    }
}
