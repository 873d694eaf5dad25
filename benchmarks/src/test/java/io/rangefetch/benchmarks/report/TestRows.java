package io.rangefetch.benchmarks.report;

/** Result rows for the report tests: the figures a test names, the others as a plain counted run has them. */
final class TestRows {

    private TestRows() {}

    /** A clean row of the comparison: 1 byte transferred, needed and held, compared with itself. */
    static ResultRow ok(String workload, String reader, double seconds, long gets, long lists) {
        return new ResultRow(
                "clean",
                workload,
                reader,
                null,
                ResultRow.OK,
                null,
                3,
                seconds,
                gets,
                0L,
                lists,
                1L,
                1L,
                1L,
                0L,
                0L,
                null,
                null,
                false,
                1.0,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    /** A listing row: a wanted set, a strategy, the objects it listed, and a target's verdict (or null). */
    static ResultRow listed(String set, String strategy, double seconds, long lists, long objects, String target) {
        return new ResultRow(
                "clean",
                set,
                strategy,
                null,
                ResultRow.OK,
                null,
                3,
                seconds,
                0L,
                0L,
                lists,
                0L,
                objects,
                1L,
                0L,
                0L,
                null,
                null,
                false,
                1.0,
                null,
                null,
                null,
                null,
                null,
                null,
                target);
    }

    static ResultRow failed(String workload, String reader, String failure) {
        return ResultRow.failed("clean", workload, reader, null, failure);
    }
}
