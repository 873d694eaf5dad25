package io.rangefetch.benchmarks;

import io.rangefetch.benchmarks.readers.AnalyticsAcceleratorReader;
import io.rangefetch.benchmarks.readers.IcebergS3FileIOReader;
import io.rangefetch.benchmarks.readers.IcebergS3FileIOReader.Variant;
import io.rangefetch.benchmarks.readers.RangefetchReader;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.readers.S3AAnalyticsReader;
import io.rangefetch.benchmarks.readers.S3AClassicReader;
import io.rangefetch.benchmarks.readers.S3AFileSystemReader;
import io.rangefetch.benchmarks.readers.S3ARangefetchReader;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The readers the runner knows, by the ids {@code --readers} takes, Rangefetch first. By default a run
 * measures {@link #DEFAULTS}: Rangefetch on its default client and through its Iceberg FileIO, and the streams
 * engines run today (Iceberg's S3FileIO with and without the analytics accelerator, S3A's two, the accelerator
 * alone).
 */
public final class ReaderCatalog {

    private static final Map<String, Supplier<ReaderUnderTest>> READERS = readers();

    /** What a run measures unless told otherwise. */
    public static final List<String> DEFAULTS = List.of(
            "rangefetch",
            "iceberg-rangefetch",
            "iceberg",
            "s3a-classic",
            "s3a-analytics",
            "s3a-rangefetch",
            "aal",
            "iceberg-aal");

    private ReaderCatalog() {}

    /** Every id, in report order. */
    public static List<String> ids() {
        return List.copyOf(READERS.keySet());
    }

    /** The named readers in report order, without repeats. */
    public static List<ReaderUnderTest> select(Collection<String> ids) {
        Set<String> wanted = new LinkedHashSet<>(ids);
        for (String id : wanted) {
            if (!READERS.containsKey(id)) {
                throw new IllegalArgumentException("unknown reader '" + id + "'; known: " + String.join(", ", ids()));
            }
        }
        return READERS.entrySet().stream()
                .filter(entry -> wanted.contains(entry.getKey()))
                .map(entry -> entry.getValue().get())
                .toList();
    }

    private static Map<String, Supplier<ReaderUnderTest>> readers() {
        Map<String, Supplier<ReaderUnderTest>> readers = new LinkedHashMap<>();
        readers.put("rangefetch", RangefetchReader::new);
        readers.put("rangefetch-netty", () -> new RangefetchReader(RangefetchReader.Client.NETTY));
        readers.put("rangefetch-crt", () -> new RangefetchReader(RangefetchReader.Client.CRT));
        readers.put("iceberg-rangefetch", () -> new IcebergS3FileIOReader(Variant.RANGEFETCH));
        readers.put("iceberg", IcebergS3FileIOReader::new);
        readers.put("iceberg-aal", () -> new IcebergS3FileIOReader(Variant.ANALYTICS_ACCELERATOR));
        readers.put("s3a-classic", S3AClassicReader::new);
        readers.put("s3a-analytics", S3AAnalyticsReader::new);
        readers.put("s3a-rangefetch", S3ARangefetchReader::new);
        readers.put("s3a-filesystem", S3AFileSystemReader::new);
        readers.put("aal", AnalyticsAcceleratorReader::new);
        return readers;
    }
}
