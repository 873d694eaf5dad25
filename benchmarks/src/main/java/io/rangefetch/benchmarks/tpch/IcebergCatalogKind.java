package io.rangefetch.benchmarks.tpch;

import java.util.Arrays;
import java.util.Locale;

/**
 * The catalog the Iceberg paths find their tables through. It decides how many requests a query makes before any
 * FileIO reads, so the Iceberg rows are comparable only between runs of one catalog.
 */
public enum IcebergCatalogKind {
    /**
     * A JDBC catalog on a SQLite file: it keeps each table's metadata location, and every metadata file is read
     * through the FileIO under test, as with REST, Glue or JDBC catalogs in production.
     */
    JDBC("jdbc", "iceberg-jdbc"),
    /**
     * A Hadoop catalog on the warehouse: each table load finds the current version through S3A on the driver (version
     * hint, metadata listing, existence checks), one request after another and the same for every FileIO.
     */
    HADOOP("hadoop", "iceberg");

    final String id;
    /** The warehouse folder's name, one per catalog so neither finds the other's files. */
    final String warehouseName;

    IcebergCatalogKind(String id, String warehouseName) {
        this.id = id;
        this.warehouseName = warehouseName;
    }

    public static IcebergCatalogKind parse(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(kind -> kind.id.equals(wanted))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException("--iceberg-catalog takes jdbc or hadoop, not '" + id + "'"));
    }

    @Override
    public String toString() {
        return id;
    }
}
