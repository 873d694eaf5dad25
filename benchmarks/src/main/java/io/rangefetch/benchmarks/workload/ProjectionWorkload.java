package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.ParquetSpec;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.List;

/**
 * A column projection: three non-adjacent columns of every row group of one wide Parquet file, read through
 * parquet-java. Each row group's three chunks are separate ranges parquet-java asks for together, so a
 * reader that fetches them in parallel (or merges them) gains, and one that reads between them loses.
 */
public final class ProjectionWorkload implements Workload {

    /** Column indexes far enough apart that no two chunks are adjacent in a row group. */
    public static final List<String> COLUMNS =
            List.of(ParquetSpec.columnName(2), ParquetSpec.columnName(7), ParquetSpec.columnName(13));

    private final ParquetSpec spec;
    private final StoredObject object;

    public ProjectionWorkload(ParquetSpec spec, StoredObject object) {
        this.spec = requireNonNull(spec, "spec is null");
        this.object = requireNonNull(object, "object is null");
    }

    @Override
    public String name() {
        return "projection";
    }

    @Override
    public String description() {
        return String.format(
                "%s (%.0f MB, %d row groups, %d columns): columns %s of every row group through "
                        + "parquet-java, every value decoded and checked",
                object.key(), object.length() / 1e6, spec.rowGroups(), ParquetSpec.COLUMNS, String.join(", ", COLUMNS));
    }

    /** The footer, then every chunk at once. */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(2);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        return Outcome.needed(ParquetScan.scan(Workloads.parquetFile(session, object), spec, COLUMNS));
    }
}
