package io.rangefetch.benchmarks.tpch;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The ways Spark reads the TPC-H tables, by family: S3A's three streams, Iceberg's three FileIO setups; and, as a
 * reference in each family, the same files or tables on local disk (no network: what Spark itself takes).
 */
enum ReadPath {
    LOCAL_DISK("local-disk", "S3A", "local disk, no network (Spark's own time)"),
    S3A_CLASSIC("s3a-classic", "S3A", "S3A classic stream"),
    S3A_ANALYTICS("s3a-analytics", "S3A", "S3A analytics stream (AAL)"),
    S3A_RANGEFETCH("s3a-rangefetch", "S3A", "S3A with RangefetchStreamFactory"),
    ICEBERG_LOCAL_DISK("iceberg-local-disk", "Iceberg", "Iceberg on local disk, no network (Iceberg's own time)"),
    ICEBERG("iceberg", "Iceberg", "Iceberg S3FileIO"),
    ICEBERG_AAL("iceberg-aal", "Iceberg", "Iceberg S3FileIO + AAL"),
    ICEBERG_RANGEFETCH("iceberg-rangefetch", "Iceberg", "RangefetchS3FileIO");

    final String id;
    final String family;
    final String description;

    ReadPath(String id, String family, String description) {
        this.id = id;
        this.family = family;
        this.description = description;
    }

    boolean iceberg() {
        return family.equals("Iceberg");
    }

    boolean rangefetch() {
        return id.endsWith("rangefetch");
    }

    /** A reference, not a contender: Rangefetch's speed-up is over the fastest path that reads from S3. */
    boolean reference() {
        return this == LOCAL_DISK || this == ICEBERG_LOCAL_DISK;
    }

    static ReadPath parse(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(path -> path.id.equals(wanted))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown read path '" + id + "'; known: " + ids()));
    }

    static List<String> ids() {
        return Arrays.stream(values()).map(path -> path.id).toList();
    }
}
