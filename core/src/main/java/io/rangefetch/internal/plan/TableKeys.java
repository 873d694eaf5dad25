package io.rangefetch.internal.plan;

import static java.util.Objects.requireNonNull;

/**
 * Which table an object's key belongs to, as far as its key tells: its folder, less the partition folders
 * ({@code name=value}) at the folder's end. The files of one table share a writer and a schema, and its readers
 * read them alike, so what was learned of some (footer sizes, what predictions wasted) fits the others:
 * {@code w/db/t/data/day=1/h=2/f.parquet} belongs to {@code w/db/t/data}.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFormatView} tells a format policy an object's table with it.
 */
public final class TableKeys {
    private TableKeys() {}

    /** The table of {@code key}: "" for a key in no folder. */
    public static String table(String key) {
        requireNonNull(key, "key is null");
        String folder = key.substring(0, Math.max(0, key.lastIndexOf('/')));
        while (folder.substring(folder.lastIndexOf('/') + 1).contains("=")) {
            folder = folder.substring(0, Math.max(0, folder.lastIndexOf('/')));
        }
        return folder;
    }
}
