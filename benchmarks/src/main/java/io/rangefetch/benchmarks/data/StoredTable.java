package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

/**
 * An Iceberg table on the server, as a reader opens it: the location of its current metadata file, which any
 * FileIO can open without a catalog ({@code StaticTableOperations}).
 *
 * @param scannedDataFiles the data files the query reads after partition pruning
 * @param scannedDeleteFiles the position delete files that apply to them
 * @param neededBytes what the query needs at least: the selected columns' chunks of the scanned data files
 *     (Iceberg's column sizes) and the whole of the delete files; footers and table metadata are not counted
 */
public record StoredTable(String metadataLocation, int scannedDataFiles, int scannedDeleteFiles, long neededBytes) {

    public StoredTable {
        requireNonNull(metadataLocation, "metadataLocation is null");
        if (scannedDataFiles < 0 || scannedDeleteFiles < 0 || neededBytes < 0) {
            throw new IllegalArgumentException(String.format(
                    "negative figure: %d data files, %d delete files, %d bytes",
                    scannedDataFiles, scannedDeleteFiles, neededBytes));
        }
    }
}
