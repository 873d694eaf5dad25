package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.ObjectListing;
import io.rangefetch.OpenOptions;
import io.rangefetch.benchmarks.data.ParquetSpec;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.RangefetchAccess;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.client.ListedObject;
import io.rangefetch.parquet.S3ParquetInputFile;
import java.io.IOException;
import java.util.List;

/**
 * The small-files workload as an engine runs it that knows only the directory: the files' directory listed with
 * {@code StreamFactory.list}, then each listed file opened with what the listing said ({@link
 * ListedObject#openOptions()}: length and ETag) and read whole through parquet-java, every value checked. Set
 * beside Rangefetch's small-files row, it shows what listing first costs: one LIST, and no HEAD or extra GET per
 * file. The listing itself must be exactly the stored files (keys, lengths, ETags, in order). Runs only on
 * Rangefetch's readers.
 */
public final class ListThenReadWorkload implements Workload {

    private final List<ParquetSpec> specs;
    private final List<StoredObject> objects;
    private final String directory;

    /** @param specs and {@code objects}: the same files, in key order, all in one directory and alone in it */
    public ListThenReadWorkload(List<ParquetSpec> specs, List<StoredObject> objects) {
        this.specs = List.copyOf(requireNonNull(specs, "specs is null"));
        this.objects = List.copyOf(requireNonNull(objects, "objects is null"));
        if (specs.isEmpty() || specs.size() != objects.size()) {
            throw new IllegalArgumentException(specs.size() + " specs for " + objects.size() + " objects");
        }
        String first = objects.get(0).key();
        this.directory = first.substring(0, first.lastIndexOf('/') + 1);
        if (objects.stream().anyMatch(object -> !object.key().startsWith(directory))) {
            throw new IllegalArgumentException("the small files are not all in " + directory);
        }
    }

    @Override
    public String name() {
        return Workloads.LIST_THEN_READ;
    }

    @Override
    public String description() {
        return "small-files' " + objects.size() + " files found by listing their directory (" + directory
                + ") with StreamFactory.list, each opened with the listing's length and ETag and read as small-files "
                + "reads it";
    }

    /** The listing, then small-files' bound. */
    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(1 + objects.size());
    }

    @Override
    public boolean runsOn(ReaderUnderTest reader) {
        return reader.isRangefetch();
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        RangefetchAccess rangefetch = session.rangefetch();
        List<ListedObject> listed;
        try (ObjectListing listing = rangefetch.factory().list(List.of(rangefetch.location(directory)))) {
            listed = listing.toList();
        }
        List<StoredObject> found = listed.stream()
                .map(object -> new StoredObject(object.location().key(), object.length(), object.etag()))
                .toList();
        if (!found.equals(objects)) {
            throw new WrongBytesException("listing " + directory + " gave " + found + "; stored: " + objects);
        }
        long needed = 0;
        for (int i = 0; i < listed.size(); i++) {
            ListedObject file = listed.get(i);
            needed += ParquetScan.scan(
                    new S3ParquetInputFile(rangefetch.factory(), file.location(), OpenOptions.of(file)),
                    specs.get(i),
                    List.of());
        }
        return Outcome.needed(needed);
    }
}
