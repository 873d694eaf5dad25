package io.rangefetch.timeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.timeline.Analysis.GetTotals;
import io.rangefetch.timeline.Analysis.StreamReads;
import io.rangefetch.timeline.Analysis.ThreadReads;
import io.rangefetch.timeline.Events.GetAttempt;
import io.rangefetch.timeline.Events.ReadWait;
import io.rangefetch.timeline.Events.StreamOpened;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The analysis and the wait split on events built by hand, with exact times. */
class AnalysisTest {
    static final long MS = 1_000_000;

    @Test
    void aReadsOwnWaitIsItsPhasesAndTheRestIsOther() {
        WaitSplit split = WaitSplit.of(readWait("t", 0, 10 * MS, 1, false, 1 * MS, 2 * MS, 3 * MS, 1 * MS, 0));

        assertThat(split.get(Phase.QUEUE)).isEqualTo(1 * MS);
        assertThat(split.get(Phase.THROTTLE)).isEqualTo(2 * MS);
        assertThat(split.get(Phase.FIRST_BYTE)).isEqualTo(3 * MS);
        assertThat(split.get(Phase.TRANSFER)).isEqualTo(1 * MS);
        assertThat(split.get(Phase.BACKOFF)).isZero();
        assertThat(split.get(Phase.JOINED)).isZero();
        assertThat(split.get(Phase.OTHER)).isEqualTo(3 * MS);
        assertThat(split.total()).isEqualTo(10 * MS);
        assertThat(split.largest()).isEqualTo(Phase.FIRST_BYTE);
    }

    @Test
    void aJoinedReadWaitedWhollyOnAnotherStreamsGet() {
        WaitSplit split = WaitSplit.of(readWait("t", 0, 10 * MS, 1, true, 0, 0, 6 * MS, 2 * MS, 0));

        assertThat(split.get(Phase.JOINED)).isEqualTo(10 * MS);
        assertThat(split.total()).isEqualTo(10 * MS);
        assertThat(split.get(Phase.FIRST_BYTE)).isZero();
    }

    @Test
    void phasesAddingUpToMoreThanTheWaitAreScaledDownToIt() {
        WaitSplit split = WaitSplit.of(readWait("t", 0, 10 * MS, 1, false, 0, 0, 15 * MS, 5 * MS, 0));

        assertThat(split.get(Phase.FIRST_BYTE)).isEqualTo(7_500_000);
        assertThat(split.get(Phase.TRANSFER)).isEqualTo(2_500_000);
        assertThat(split.get(Phase.OTHER)).isZero();
        assertThat(split.total()).isEqualTo(10 * MS);
    }

    @Test
    void threadsAreListedMostTimeWaitedFirstAndBusyIsTheirSpans() {
        Events events = events(
                List.of(
                        readWait("small", 0, 1 * MS, 1, false, 0, 0, 0, 0, 0),
                        readWait("big", 2 * MS, 7 * MS, 2, false, 0, 0, 5 * MS, 0, 0),
                        readWait("big", 20 * MS, 23 * MS, 2, false, 0, 0, 0, 3 * MS, 0),
                        readWait("middle", 5 * MS, 9 * MS, 3, false, 4 * MS, 0, 0, 0, 0)),
                List.of());
        Analysis analysis = Analysis.of(events, name -> true);

        assertThat(analysis.threads()).extracting(ThreadReads::thread).containsExactly("big", "middle", "small");
        assertThat(analysis.threads()).extracting(ThreadReads::waited).containsExactly(8 * MS, 4 * MS, 1 * MS);
        assertThat(analysis.threads().get(0).span()).isEqualTo(21 * MS);
        assertThat(analysis.busy()).isEqualTo(21 * MS + 4 * MS + 1 * MS);
        assertThat(analysis.waited().get(Phase.FIRST_BYTE)).isEqualTo(5 * MS);
        assertThat(analysis.waited().get(Phase.TRANSFER)).isEqualTo(3 * MS);
        assertThat(analysis.waited().get(Phase.QUEUE)).isEqualTo(4 * MS);
        assertThat(analysis.waited().get(Phase.OTHER)).isEqualTo(1 * MS);
        assertThat(analysis.origin()).isZero();

        Analysis narrowed = Analysis.of(events, name -> name.startsWith("b"));
        assertThat(narrowed.threads()).extracting(ThreadReads::thread).containsExactly("big");
        assertThat(narrowed.threadsLeftOut()).isEqualTo(2);
        assertThat(narrowed.waited().total()).isEqualTo(8 * MS);
        assertThat(narrowed.streams()).extracting(StreamReads::stream).containsExactly(2L);
    }

    @Test
    void aStreamSeenOnlyThroughItsReadsTakesItsKeyFromThem() {
        Events events = events(
                List.of(readWait("t", 0, 2 * MS, 9, false, 0, 0, 0, 0, 0)),
                List.of(new StreamOpened("t", 0, 0, 4, "b", "opened/only", -1)));
        Analysis analysis = Analysis.of(events, name -> true);

        assertThat(analysis.streams()).extracting(StreamReads::stream).containsExactly(9L, 4L);
        assertThat(analysis.streams().get(0).key()).isEqualTo("k9");
        assertThat(analysis.streams().get(0).opened()).isEmpty();
        assertThat(analysis.streams().get(1).key()).isEqualTo("opened/only");
        assertThat(analysis.streams().get(1).waited()).isZero();
    }

    @Test
    void firstByteQuantilesAreNearestRankOverTheAnsweredGets() {
        GetTotals totals = GetTotals.of(List.of(get(40 * MS), get(-1), get(10 * MS), get(30 * MS), get(20 * MS)));

        assertThat(totals.firstBytes()).containsExactly(10 * MS, 20 * MS, 30 * MS, 40 * MS);
        assertThat(totals.firstByte(0.5)).isEqualTo(OptionalLong.of(20 * MS));
        assertThat(totals.firstByte(0.9)).isEqualTo(OptionalLong.of(40 * MS));
        assertThat(totals.firstByte(0)).isEqualTo(OptionalLong.of(10 * MS));
        assertThat(GetTotals.of(List.of(get(-1))).firstByte(0.5)).isEmpty();
    }

    @Test
    void figuresCarryTheirUnits() {
        assertThat(Figures.seconds(0)).isEqualTo("0 s");
        assertThat(Figures.seconds(9_200_000_000L)).isEqualTo("9.20 s");
        assertThat(Figures.seconds(41_000_000_000L)).isEqualTo("41.0 s");
        assertThat(Figures.seconds(800 * MS)).isEqualTo("0.80 s");
        assertThat(Figures.seconds(23 * MS)).isEqualTo("23 ms");
        assertThat(Figures.duration(420_000)).isEqualTo("0.42 ms");
        assertThat(Figures.duration(1_250 * MS)).isEqualTo("1.25 s");
        assertThat(Figures.offset(12_345 * MS)).isEqualTo("12.345 s");
        assertThat(Figures.bytes(512)).isEqualTo("512 B");
        assertThat(Figures.bytes(4096)).isEqualTo("4.0 KiB");
        assertThat(Figures.bytes(3L << 30)).isEqualTo("3.00 GiB");
        assertThat(Figures.count(1, "retry", "retries")).isEqualTo("1 retry");
        assertThat(Figures.count(2, "read")).isEqualTo("2 reads");
    }

    @Test
    void aReaderThreadHasReads() {
        assertThatThrownBy(() -> new ThreadReads("t", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t");
    }

    static ReadWait readWait(
            String thread,
            long start,
            long end,
            long stream,
            boolean joined,
            long queue,
            long throttle,
            long firstByte,
            long transfer,
            long backoff) {
        return new ReadWait(
                thread,
                start,
                end,
                stream,
                "b",
                "k" + stream,
                "positioned",
                0,
                1024,
                joined ? "another stream's GET" : "first byte",
                queue,
                throttle,
                firstByte,
                transfer,
                backoff,
                joined,
                end - start);
    }

    static GetAttempt get(long firstByte) {
        return get("fetch", 0, 100 * MS, firstByte);
    }

    static GetAttempt get(String thread, long start, long end, long firstByte) {
        return new GetAttempt(
                thread, start, end, "b", "k", "0-1023", 1024, 1024, firstByte, 1, false, "demand", "complete", 206);
    }

    static Events events(List<ReadWait> waits, List<StreamOpened> opened) {
        return events(waits, opened, List.of());
    }

    static Events events(List<ReadWait> waits, List<StreamOpened> opened, List<GetAttempt> gets) {
        return new Events(
                0, 100 * MS, gets, waits, List.of(), opened, List.of(), List.of(), List.of(), List.of(), List.of());
    }
}
