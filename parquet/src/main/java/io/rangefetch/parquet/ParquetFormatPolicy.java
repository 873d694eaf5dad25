package io.rangefetch.parquet;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rangefetch.Setting;
import io.rangefetch.client.ByteRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parquet files, for any reader of a Rangefetch stream (parquet-java through {@link S3ParquetInputFile}, or an
 * engine's own reader): the stream opens by fetching the file's tail, where the footer is, and the footer is
 * parsed off the reader's thread into where each row group's column chunks lie; then reads of column chunks
 * bring the chunks the reader is predicted to read next (see {@link ParquetColumnSession}).
 *
 * <p><b>Footer.</b> The open fetch is the last {@code parquet.footer-precache-size} bytes, or
 * {@code parquet.large-footer-precache-size} for a file known to be over {@code parquet.large-file-size} (their
 * footers are larger); when the length is not known yet, it is the suffix GET that learns it (and the ETag): no
 * HEAD, no separate read of the 8-byte trailer. When the footer is longer than what was fetched, exactly the rest
 * is fetched, once. Footers of one table are alike, so once a table's footers have been seen its next file's tail
 * is the largest of the last {@value FooterTails#REMEMBERED} (trailer included) plus a margin ({@link FooterTails}):
 * a 5 KB footer then costs a 7 KB tail, not 32 KiB. What a tail learned counts the page indexes right before the
 * footer too (parquet-java writes them there; Spark's and Iceberg's readers with a filter read them next): one GET
 * then serves both, for a few more KB. A learned tail may pass the configured precache, never
 * {@code parquet.large-footer-precache-size}. A table is the key's folder less its partition folders ({@code a=b}),
 * so the footers of one query's other tables never cut this table's tail. A footer that is not one (bad magic, bad length, Thrift that does not decode) turns column
 * awareness off for the file with one warning; reads still return the right bytes.
 *
 * <p>One instance per factory (the factory loads it with {@link java.util.ServiceLoader}): it holds the column
 * history across files, and the parsed footers of recent files, shared by their streams of one identity
 * ({@code FormatStream.readerIdentity()}). Thread-safe. Its settings
 * ({@code parquet.*}) are declared here, and read from properties as the stream's are.
 */
public final class ParquetFormatPolicy implements FormatPolicy {
    public static final Setting<Long> FOOTER_PRECACHE_SIZE = Setting.requestSize(
            "parquet.footer-precache-size",
            "32KiB",
            0,
            "Bytes of a Parquet file's tail fetched when its stream opens, for files up to "
                    + "parquet.large-file-size.");
    public static final Setting<Long> LARGE_FOOTER_PRECACHE_SIZE = Setting.requestSize(
            "parquet.large-footer-precache-size",
            "1MiB",
            0,
            "Bytes of a Parquet file's tail fetched when its stream opens, for files larger than "
                    + "parquet.large-file-size.");
    // About one round trip's worth of bytes at S3's per-connection rate (30 ms x 85 MiB/s, about 2.5 MiB), rounded
    // up: a file this small costs little more whole than its footer alone, and saves the round trip that reading
    // the footer first costs.
    public static final Setting<Long> WHOLE_FILE_SIZE = Setting.requestSize(
            "parquet.whole-file-size",
            "3MiB",
            0,
            "A Parquet file of at most this many bytes (and of at most read.small-object-size) is read whole on "
                    + "its first read; a larger one is read footer first, then only the column chunks its reader "
                    + "reads or is predicted to read.");
    public static final Setting<Long> LARGE_FILE_SIZE = Setting.size(
            "parquet.large-file-size",
            "1GiB",
            0,
            "Above this length a Parquet file's open fetches parquet.large-footer-precache-size of its tail "
                    + "instead of parquet.footer-precache-size.");

    /** Recent files whose footers stay parsed: parquet-java opens a file's stream more than once. */
    static final int PARSED_FOOTERS = 256;

    private static final Logger LOG = LoggerFactory.getLogger(ParquetFormatPolicy.class);

    private final ColumnHistory history = new ColumnHistory();
    /** Tables whose footer tails are remembered, the least used forgotten first. */
    static final int REMEMBERED_TABLES = 1_000;

    private final Cache<String, FooterTails> footerTails = Caffeine.newBuilder()
            .maximumSize(REMEMBERED_TABLES)
            .executor(Runnable::run)
            .build();
    private final Cache<FileVersion, CompletableFuture<ParquetFooter>> footers = Caffeine.newBuilder()
            .maximumSize(PARSED_FOOTERS)
            .executor(Runnable::run)
            .build();

    @Override
    public String name() {
        return "parquet";
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(FOOTER_PRECACHE_SIZE, LARGE_FOOTER_PRECACHE_SIZE, WHOLE_FILE_SIZE, LARGE_FILE_SIZE);
    }

    @Override
    public FormatSession open(FormatStream stream) {
        return new ParquetColumnSession(stream, this);
    }

    ColumnHistory history() {
        return history;
    }

    /**
     * The tail to fetch on open: the configured precache for a file of its length (when known), or less when the
     * footers seen lately were all smaller.
     */
    long precacheSize(FormatStream stream) {
        long length = stream.knownLength().orElse(-1);
        long largeFooterPrecacheSize = stream.get(LARGE_FOOTER_PRECACHE_SIZE);
        long configured =
                length > stream.get(LARGE_FILE_SIZE) ? largeFooterPrecacheSize : stream.get(FOOTER_PRECACHE_SIZE);
        FooterTails learned = footerTails.getIfPresent(stream.table());
        OptionalLong expected = learned == null ? OptionalLong.empty() : learned.expected();
        if (configured == 0 || expected.isEmpty()) {
            return configured;
        }
        return Math.min(expected.getAsLong(), Math.max(configured, largeFooterPrecacheSize));
    }

    /**
     * The tail a file's next reader needs, as its parsed footer shows: from where its page indexes start, when
     * they lie right before the footer within {@code parquet.large-footer-precache-size}, else from the footer.
     */
    static long neededTail(ParquetFooter footer, long length, long footerStart, long limit) {
        long start = footerStart;
        if (!footer.pageIndexes().isEmpty()) {
            long indexesStart = footer.pageIndexes().get(0).bytes().start();
            long indexesEnd = footer.pageIndexes().stream()
                    .mapToLong(index -> index.bytes().end())
                    .max()
                    .orElseThrow();
            if (indexesEnd <= footerStart && length - indexesStart <= limit) {
                start = indexesStart;
            }
        }
        return length - start;
    }

    /**
     * The file's parsed footer, read and parsed once per file version for all its streams: its trailer and footer
     * read from the cached tail (the rest of a long footer fetched), parsed on the factory's threads. Completes
     * with {@code null} when the footer is not one (logged once).
     */
    CompletableFuture<ParquetFooter> footer(FormatStream stream) {
        long length = stream.knownLength().orElseThrow();
        // An empty object has no ETag when its length was learned from a 416; too short to be Parquet, it is
        // refused (and logged) once per file and identity like any other, under no ETag.
        String etag = length < ParquetFooter.TRAILER_BYTES
                ? stream.etag().orElse("")
                : stream.etag().orElseThrow();
        FileVersion version = new FileVersion(stream.bucket(), stream.key(), etag, stream.readerIdentity());
        CompletableFuture<ParquetFooter> footer = footers.get(version, ignored -> readFooter(stream, length));
        // a read that failed (the network, a closed factory) is tried again by the file's next stream
        footer.whenComplete((parsed, failure) -> {
            if (failure != null) {
                footers.asMap().remove(version, footer);
            }
        });
        return footer;
    }

    /** The footer of a file version if a stream of it started reading it, whatever its identity; for tests. */
    java.util.Optional<CompletableFuture<ParquetFooter>> footerOf(S3Location location, String etag) {
        return footers.asMap().entrySet().stream()
                .filter(entry -> entry.getKey().bucket().equals(location.bucket())
                        && entry.getKey().key().equals(location.key())
                        && entry.getKey().etag().equals(etag))
                .map(java.util.Map.Entry::getValue)
                .findFirst();
    }

    /** How many identities' parsed footers of a file version are held; for tests. */
    long footersHeld(S3Location location, String etag) {
        return footers.asMap().keySet().stream()
                .filter(version -> version.bucket().equals(location.bucket())
                        && version.key().equals(location.key())
                        && version.etag().equals(etag))
                .count();
    }

    private CompletableFuture<ParquetFooter> readFooter(FormatStream stream, long length) {
        if (length < ParquetFooter.TRAILER_BYTES) {
            return CompletableFuture.completedFuture(corrupt(
                    stream.uri(),
                    new ParquetFooter.CorruptFooterException("Not a Parquet file: " + length + " bytes", null)));
        }
        return stream.read(new ByteRange(length - ParquetFooter.TRAILER_BYTES, length))
                .thenCompose(trailer -> {
                    byte[] bytes = new byte[ParquetFooter.TRAILER_BYTES];
                    trailer.get(trailer.position(), bytes);
                    int footerLength;
                    try {
                        footerLength = ParquetFooter.footerLength(bytes, length);
                    } catch (ParquetFooter.CorruptFooterException e) {
                        return CompletableFuture.completedFuture(corrupt(stream.uri(), e));
                    }
                    long footerEnd = length - ParquetFooter.TRAILER_BYTES;
                    long footerStart = footerEnd - footerLength;
                    return stream.read(new ByteRange(footerStart, footerEnd))
                            .thenApplyAsync(footer -> parse(stream.uri(), footer, length), stream.executor())
                            .thenApply(parsed -> {
                                footerTails
                                        .get(stream.table(), ignored -> new FooterTails())
                                        .record(
                                                parsed == null
                                                        ? length - footerStart
                                                        : neededTail(
                                                                parsed,
                                                                length,
                                                                footerStart,
                                                                stream.get(LARGE_FOOTER_PRECACHE_SIZE)));
                                return parsed;
                            });
                });
    }

    private static ParquetFooter parse(String uri, ByteBuffer footer, long length) {
        byte[] bytes = new byte[footer.remaining()];
        footer.get(footer.position(), bytes);
        try {
            return ParquetFooter.parse(bytes, length);
        } catch (ParquetFooter.CorruptFooterException e) {
            return corrupt(uri, e);
        }
    }

    private static ParquetFooter corrupt(String uri, ParquetFooter.CorruptFooterException e) {
        LOG.warn("Column prefetch is off for {}: {}", uri, e.getMessage());
        return null;
    }

    /**
     * One version of a file as one identity read it: a footer parsed from bytes one identity fetched is never handed
     * to a stream of another, which would learn the file's schema and layout from bytes it may not read.
     */
    private record FileVersion(String bucket, String key, String etag, Object readerIdentity) {}
}
