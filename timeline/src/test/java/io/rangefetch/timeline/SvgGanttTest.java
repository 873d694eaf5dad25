package io.rangefetch.timeline;

import static io.rangefetch.timeline.AnalysisTest.MS;
import static io.rangefetch.timeline.AnalysisTest.events;
import static io.rangefetch.timeline.AnalysisTest.get;
import static io.rangefetch.timeline.AnalysisTest.readWait;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.ReadWait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** The chart's bounds, packing and escaping, on events built by hand. */
class SvgGanttTest {
    @TempDir
    Path directory;

    @Test
    void theChartDrawsAtMostItsRowsAndSaysWhatItLeftOut() throws Exception {
        List<ReadWait> waits = new ArrayList<>();
        for (int thread = 0; thread < SvgGantt.READER_ROWS + 10; thread++) {
            // thread n waits n + 1 ms: the ten that waited least are left out
            waits.add(readWait("reader-" + thread, thread * MS, (2 * thread + 1) * MS, thread, false, 0, 0, 0, 0, 0));
        }
        List<GetAttempt> gets = new ArrayList<>();
        for (int i = 0; i < SvgGantt.GET_ROWS + 5; i++) {
            // all in flight at once on one event loop: a row each
            gets.add(get("event-loop", i * MS, 200 * MS, 5 * MS));
        }
        Analysis analysis = Analysis.of(events(waits, List.of(), gets), name -> true);
        Path svg = directory.resolve("bounded.svg");
        SvgGantt.write(analysis, "bounded.jfr", svg);

        Document document = TimelineTest.parse(svg);
        assertThat(TimelineTest.groups(document, "row reader")).hasSize(SvgGantt.READER_ROWS);
        assertThat(TimelineTest.groups(document, "wait")).hasSize(SvgGantt.READER_ROWS);
        assertThat(TimelineTest.labels(document))
                .doesNotContain("reader-0", "reader-9")
                .contains("reader-10");
        assertThat(TimelineTest.groups(document, "row get")).hasSize(SvgGantt.GET_ROWS);
        assertThat(TimelineTest.groups(document, "get")).hasSize(SvgGantt.GET_ROWS);
        assertThat(Files.readString(svg))
                .contains("10 more reader threads not drawn")
                .contains("5 more GET rows (5 GETs) not drawn");
    }

    @Test
    void getsThatDoNotOverlapShareARow() {
        List<List<GetAttempt>> lanes = SvgGantt.lanes(List.of(
                get("t", 0, 10 * MS, 1),
                get("t", 5 * MS, 12 * MS, 1),
                get("t", 10 * MS, 20 * MS, 1),
                get("t", 13 * MS, 14 * MS, 1)));

        assertThat(lanes).hasSize(2);
        assertThat(lanes.get(0)).extracting(GetAttempt::start).containsExactly(0L, 10 * MS);
        assertThat(lanes.get(1)).extracting(GetAttempt::start).containsExactly(5 * MS, 13 * MS);
    }

    @Test
    void namesAreEscapedForXml() throws Exception {
        String name = "worker <1> & 'quoted' \"names\"\u0001";
        Analysis analysis = Analysis.of(
                events(List.of(readWait(name, 0, 5 * MS, 1, false, 0, 0, 1 * MS, 0, 0)), List.of()), thread -> true);
        Path svg = directory.resolve("escaped.svg");
        SvgGantt.write(analysis, "a&b.jfr", svg);

        Document document = TimelineTest.parse(svg);
        assertThat(TimelineTest.labels(document)).containsExactly("worker <1> & 'quoted' \"names\"\uFFFD");
    }

    @Test
    void aBarDrawsEveryPhase() {
        assertThat(SvgGantt.BAR_ORDER).containsExactlyInAnyOrder(Phase.values());
    }

    @Test
    void axisStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(SvgGantt.niceStep(0.7)).isEqualTo(1.0);
        assertThat(SvgGantt.niceStep(1.3)).isEqualTo(2.0);
        assertThat(SvgGantt.niceStep(0.03)).isEqualTo(0.05, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(SvgGantt.niceStep(40)).isEqualTo(50.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(SvgGantt.niceStep(5)).isEqualTo(5.0, org.assertj.core.data.Offset.offset(1e-9));
    }
}
