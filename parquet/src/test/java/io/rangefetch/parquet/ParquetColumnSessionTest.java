package io.rangefetch.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.Setting;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * What a read of a Parquet file's bytes makes the Parquet policy prefetch, on a footer laid out by hand: two
 * row groups of columns {@code a} and {@code b} (each with a 100-byte dictionary page) and {@code c} (none).
 */
class ParquetColumnSessionTest {
    private static final long UNLIMITED = Long.MAX_VALUE;
    private static final ParquetFooter FOOTER = new ParquetFooter(List.of(
            List.of(
                    chunk(0, "a", 1_000, 2_000, 1_100),
                    chunk(0, "b", 2_000, 3_000, 2_100),
                    chunk(0, "c", 3_000, 4_000, -1)),
            List.of(
                    chunk(1, "a", 4_000, 5_000, 4_100),
                    chunk(1, "b", 5_000, 6_000, 5_100),
                    chunk(1, "c", 6_000, 7_000, -1))));

    @Test
    void startingAChunkPrefetchesThePredictedColumnsOfItsRowGroupAndOfTheOnesAfter() {
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_000, 2_000)), Set.of("a", "b"), UNLIMITED))
                .containsExactly(range(1_000, 2_000), range(2_000, 3_000), range(4_000, 5_000), range(5_000, 6_000));
        // a reader that starts the second row group looks no further back
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(6_000, 6_010)), Set.of("c"), UNLIMITED))
                .containsExactly(range(6_000, 7_000));
    }

    @Test
    void aColumnOnlyTheHistoryPredictsIsPrefetchedInTheCurrentRowGroupOnlyUntilTheReaderReadsIt() {
        assertThat(ColumnPrefetchPlan.ahead(
                        FOOTER, List.of(range(1_000, 2_000)), Set.of("a"), Set.of("a", "b"), UNLIMITED))
                .as("b of the first row group, a of both")
                .containsExactly(range(1_000, 2_000), range(2_000, 3_000), range(4_000, 5_000));
        assertThat(ColumnPrefetchPlan.ahead(
                        FOOTER, List.of(range(2_000, 2_200)), Set.of("a", "b"), Set.of("a", "b"), UNLIMITED))
                .as("b read: confirmed")
                .containsExactly(range(1_000, 2_000), range(2_000, 3_000), range(4_000, 5_000), range(5_000, 6_000));
    }

    @Test
    void ofTheLaterRowGroupsTheWindowTakesTheNextAlwaysAndTheOnesAfterWithinItNoneWhenClosed() {
        ParquetFooter three = new ParquetFooter(List.of(
                List.of(chunk(0, "a", 1_000, 2_000, -1)), List.of(chunk(1, "a", 2_000, 3_000, -1)),
                List.of(chunk(2, "a", 3_000, 4_000, -1)), List.of(chunk(3, "a", 4_000, 5_000, -1))));
        List<ByteRange> read = List.of(range(1_000, 1_100));
        assertThat(ColumnPrefetchPlan.ahead(three, read, Set.of("a"), Set.of("a"), UNLIMITED, 0))
                .as("predictions held back: the row group read now only")
                .containsExactly(new ColumnPrefetchPlan.Planned(0, range(1_000, 2_000)));
        assertThat(ColumnPrefetchPlan.ahead(three, read, Set.of("a"), Set.of("a"), UNLIMITED, 1))
                .as("a window smaller than a row group still takes the next")
                .extracting(ColumnPrefetchPlan.Planned::rowGroup)
                .containsExactly(0, 1);
        assertThat(ColumnPrefetchPlan.ahead(three, read, Set.of("a"), Set.of("a"), UNLIMITED, 2_000))
                .extracting(ColumnPrefetchPlan.Planned::rowGroup)
                .containsExactly(0, 1, 2);
        assertThat(ColumnPrefetchPlan.ahead(three, read, Set.of("a"), Set.of("a"), 2_000, UNLIMITED))
                .as("the budget bounds the window")
                .extracting(ColumnPrefetchPlan.Planned::rowGroup)
                .containsExactly(0, 1);
    }

    @Test
    void theBudgetStopsAtWholeRowGroups() {
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_000, 2_000)), Set.of("a", "b"), 3_999))
                .as("the second row group's two chunks would pass the budget")
                .containsExactly(range(1_000, 2_000), range(2_000, 3_000));
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_000, 2_000)), Set.of("a", "b"), 1_000))
                .isEmpty();
    }

    @Test
    void aDictionaryOnlyReadPrefetchesOnlyThatColumnsDictionariesOfItsRowGroupAndTheOnesAfter() {
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_000, 1_100)), Set.of("a", "b", "c"), UNLIMITED))
                .as("b's dictionaries come with its chunks")
                .containsExactly(range(1_000, 1_100), range(4_000, 4_100));
        assertThat(ColumnPrefetchPlan.ahead(
                        FOOTER, List.of(range(1_000, 1_100), range(2_000, 2_100)), Set.of("a"), UNLIMITED))
                .as("a filter on two columns")
                .containsExactly(range(1_000, 1_100), range(2_000, 2_100), range(4_000, 4_100), range(5_000, 5_100));
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(4_000, 4_100)), Set.of("a"), UNLIMITED))
                .as("none of the row groups before it")
                .containsExactly(range(4_000, 4_100));
        assertThat(ColumnPrefetchPlan.ahead(
                        FOOTER, List.of(range(1_000, 1_100), range(2_000, 2_100)), Set.of("a", "b"), 399))
                .as("by whole row groups within the budget")
                .containsExactly(range(1_000, 1_100), range(2_000, 2_100));
        // reading past the dictionary page is reading the chunk
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_000, 1_101)), Set.of("a"), UNLIMITED))
                .containsExactly(range(1_000, 2_000), range(4_000, 5_000));
        // a chunk without a dictionary page read in part is read for its data
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(3_000, 3_050)), Set.of("a", "c"), UNLIMITED))
                .containsExactly(range(1_000, 2_000), range(3_000, 4_000), range(4_000, 5_000), range(6_000, 7_000));
    }

    @Test
    void readsThatStartNoChunkPrefetchNothing() {
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(1_500, 1_900)), Set.of("a", "b"), UNLIMITED))
                .as("the middle of a chunk")
                .isEmpty();
        assertThat(ColumnPrefetchPlan.ahead(FOOTER, List.of(range(7_000, 7_500)), Set.of("a"), UNLIMITED))
                .as("the footer")
                .isEmpty();
        assertThat(ColumnPrefetchPlan.startedChunks(FOOTER, List.of(range(900, 2_001))))
                .extracting(ParquetFooter.Chunk::path)
                .containsExactly("a", "b");
    }

    @Test
    void aReadOfAPageIndexPrefetchesThePredictedColumnsPageIndexesOfThatRowGroupAndTheOnesAfter() {
        ParquetFooter indexed = new ParquetFooter(List.of(
                List.of(
                        new ParquetFooter.Chunk(
                                0, "a", range(1_000, 2_000), -1, List.of(range(9_000, 9_050), range(9_200, 9_230))),
                        new ParquetFooter.Chunk(
                                0, "b", range(2_000, 3_000), -1, List.of(range(9_050, 9_100), range(9_230, 9_260))),
                        new ParquetFooter.Chunk(
                                0, "c", range(3_000, 4_000), -1, List.of(range(9_100, 9_150), range(9_260, 9_290)))),
                List.of(new ParquetFooter.Chunk(
                        1, "a", range(4_000, 5_000), -1, List.of(range(9_400, 9_450), range(9_500, 9_530))))));
        assertThat(ColumnPrefetchPlan.ahead(indexed, List.of(range(9_200, 9_230)), Set.of("a", "b"), UNLIMITED))
                .containsExactly(
                        range(9_000, 9_050),
                        range(9_200, 9_230),
                        range(9_050, 9_100),
                        range(9_230, 9_260),
                        range(9_400, 9_450),
                        range(9_500, 9_530));
        assertThat(ColumnPrefetchPlan.ahead(indexed, List.of(range(9_400, 9_450)), Set.of("a", "b"), UNLIMITED))
                .containsExactly(range(9_400, 9_450), range(9_500, 9_530));
        assertThat(ColumnPrefetchPlan.startedChunks(indexed, List.of(range(9_050, 9_060))))
                .extracting(ParquetFooter.Chunk::path)
                .as("reading b's column index starts reading b")
                .containsExactly("b");
    }

    @Test
    void aStreamingReadsStructureEndsAtItsDictionaryPageItsChunkOrItsPageIndex() {
        assertThat(FOOTER.structureEnd(1_000)).as("a's dictionary page").isEqualTo(1_100);
        assertThat(FOOTER.structureEnd(1_099)).isEqualTo(1_100);
        assertThat(FOOTER.structureEnd(1_100)).as("a's data pages").isEqualTo(2_000);
        assertThat(FOOTER.structureEnd(3_500)).as("c has no dictionary page").isEqualTo(4_000);
        assertThat(FOOTER.structureEnd(6_999)).isEqualTo(7_000);
        assertThat(FOOTER.structureEnd(7_000)).as("the footer").isEqualTo(Long.MAX_VALUE);
        assertThat(FOOTER.structureEnd(999)).as("before the first chunk").isEqualTo(Long.MAX_VALUE);
        ParquetFooter indexed = new ParquetFooter(List.of(List.of(new ParquetFooter.Chunk(
                0, "a", range(1_000, 2_000), -1, List.of(range(9_000, 9_050), range(9_200, 9_230))))));
        assertThat(indexed.structureEnd(9_010)).as("a column index").isEqualTo(9_050);
        assertThat(indexed.structureEnd(9_229)).as("an offset index").isEqualTo(9_230);
        assertThat(indexed.structureEnd(9_100)).as("between the indexes").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void untilTheFooterIsParsedAStreamingReadRampsNoFurtherThanItself() {
        CompletableFuture<ByteBuffer> never = new CompletableFuture<>();
        ParquetColumnSession session = new ParquetColumnSession(new Unparsed(never), new ParquetFormatPolicy());
        session.opened();
        assertThat(session.structureEnd(5_000))
                .as("the reader may be at a dictionary page already")
                .isEqualTo(5_001);
        session.close();
        assertThat(session.structureEnd(5_000))
                .as("no footer will come: read as any file")
                .isEqualTo(Long.MAX_VALUE);
    }

    /** A stream of a 10,000-byte Parquet file whose bytes never arrive, so its footer is never parsed. */
    private record Unparsed(CompletableFuture<ByteBuffer> bytes) implements FormatStream {
        @Override
        public String bucket() {
            return "bucket";
        }

        @Override
        public String key() {
            return "t/unparsed.parquet";
        }

        @Override
        public String table() {
            return "t";
        }

        @Override
        public OptionalLong splitEnd() {
            return OptionalLong.empty();
        }

        @Override
        public <T> T get(Setting<T> setting) {
            return StreamConfig.defaults().get(setting);
        }

        @Override
        public OptionalLong knownLength() {
            return OptionalLong.of(10_000);
        }

        @Override
        public Optional<String> etag() {
            return Optional.of("\"e\"");
        }

        @Override
        public CompletableFuture<ByteBuffer> read(ByteRange range) {
            return bytes;
        }

        @Override
        public void prefetch(List<ByteRange> ranges) {}

        @Override
        public Executor executor() {
            return Runnable::run;
        }
    }

    private static ParquetFooter.Chunk chunk(int rowGroup, String path, long start, long end, long dictionaryEnd) {
        return new ParquetFooter.Chunk(rowGroup, path, new ByteRange(start, end), dictionaryEnd);
    }

    private static ByteRange range(long start, long end) {
        return new ByteRange(start, end);
    }
}
