package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.OpenOptions.ReadPolicy;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.s3a.S3AInputPolicy;
import org.apache.hadoop.fs.s3a.S3ObjectAttributes;
import org.apache.hadoop.fs.s3a.impl.ChangeDetectionPolicy;

/**
 * What S3A knows about an object and how it will be read, as Rangefetch's {@link OpenOptions}.
 *
 * <ul>
 *   <li>Length: always known to S3A (a listing, a HEAD or {@code withFileStatus}), so the stream sends no HEAD.
 *   <li>Change detection ({@code fs.s3a.change.detection.*}): with source {@code etag} (S3A's default) the ETag
 *       S3A knows pins the stream, so an object changed since S3A learned it fails the read with
 *       {@code RemoteFileChangedException}; with source {@code versionid} the version id selects the version
 *       and the ETag pins it too. Mode {@code none} (and {@code warn}, which would go on with mixed bytes) passes
 *       neither: Rangefetch then pins the version its first GET sees, as it always does, and still never mixes
 *       bytes of two versions.
 *   <li>Input policy ({@code fs.option.openfile.read.policy}, {@code fs.s3a.experimental.input.fadvise}): S3A
 *       folds the openFile names into three: {@code sequential}, {@code whole-file}, {@code csv}, {@code json},
 *       {@code avro} are {@link ReadPolicy#SEQUENTIAL}; {@code adaptive} and {@code default} are
 *       {@link ReadPolicy#AUTO}; {@code random}, {@code vector}, {@code hbase}, {@code parquet}, {@code orc},
 *       {@code columnar} are S3A's {@code Random}, which is {@link ReadPolicy#COLUMNAR} for a key with a columnar
 *       format's extension (so a Parquet file's footer and column chunks are still read as such) and
 *       {@link ReadPolicy#RANDOM} otherwise.
 * </ul>
 */
final class OpenOptionsFromS3A {
    private static final List<String> COLUMNAR_FORMATS = List.of("parquet", "orc");

    private OpenOptionsFromS3A() {}

    static OpenOptions of(
            S3ObjectAttributes attributes,
            S3AInputPolicy inputPolicy,
            ChangeDetectionPolicy change,
            Map<String, List<String>> formatExtensions) {
        requireNonNull(attributes, "attributes is null");
        return of(
                attributes.getKey(),
                attributes.getLen(),
                attributes.getETag(),
                attributes.getVersionId(),
                inputPolicy,
                change,
                formatExtensions);
    }

    /**
     * The same from plain values, as a file system knows them from a file status ({@code etag} and
     * {@code versionId} may be {@code null}).
     */
    static OpenOptions of(
            String key,
            long length,
            String etag,
            String versionId,
            S3AInputPolicy inputPolicy,
            ChangeDetectionPolicy change,
            Map<String, List<String>> formatExtensions) {
        requireNonNull(key, "key is null");
        requireNonNull(change, "change is null");
        OpenOptions.Builder options =
                OpenOptions.builder().length(length).readPolicy(readPolicy(inputPolicy, key, formatExtensions));
        boolean detects = change.getMode() == ChangeDetectionPolicy.Mode.Server
                || change.getMode() == ChangeDetectionPolicy.Mode.Client;
        if (detects && change.getSource() != ChangeDetectionPolicy.Source.None) {
            if (isPresent(etag)) {
                options.etag(etag);
            }
            if (change.getSource() == ChangeDetectionPolicy.Source.VersionId && isPresent(versionId)) {
                options.versionId(versionId);
            }
        }
        return options.build();
    }

    static ReadPolicy readPolicy(S3AInputPolicy inputPolicy, String key, Map<String, List<String>> formatExtensions) {
        if (inputPolicy == null) {
            return ReadPolicy.AUTO;
        }
        return switch (inputPolicy) {
            case Normal -> ReadPolicy.AUTO;
            case Sequential -> ReadPolicy.SEQUENTIAL;
            case Random -> isColumnar(key, formatExtensions) ? ReadPolicy.COLUMNAR : ReadPolicy.RANDOM;
        };
    }

    private static boolean isColumnar(String key, Map<String, List<String>> formatExtensions) {
        String lowerKey = key.toLowerCase(Locale.ROOT);
        return COLUMNAR_FORMATS.stream()
                .flatMap(format -> formatExtensions.getOrDefault(format, List.of()).stream())
                .anyMatch(extension -> lowerKey.endsWith("." + extension.toLowerCase(Locale.ROOT)));
    }

    private static boolean isPresent(String value) {
        return value != null && !value.isBlank();
    }
}
