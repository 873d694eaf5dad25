package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAccumulator;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Makes sure the server holds every object a run reads, writing only those it lacks.
 *
 * <p>An object is reused when it exists and its user metadata carries the same {@link
 * GeneratedObject#marker()}: generating and uploading the full data set takes longer than measuring it, and
 * a MinIO data directory kept between runs (or a real bucket) then pays that once. Anything else (absent, a
 * different marker, a different generator version) is written to a scratch file and uploaded with a plain
 * PUT, straight to the server rather than through the shaping proxy. One progress bar on stderr covers both
 * steps.
 */
public final class DataPreparer {

    /** The user-metadata entry ({@code x-amz-meta-rangefetch-data}) holding the generator's marker. */
    public static final String MARKER_METADATA = "rangefetch-data";

    private static final long MEGABYTE = 1_000_000;

    private final S3Client s3;
    private final String bucket;
    private final Path scratchDirectory;

    /** @param s3 a client that reaches the server directly; stays the caller's to close */
    public DataPreparer(S3Client s3, String bucket, Path scratchDirectory) {
        this.s3 = requireNonNull(s3, "s3 is null");
        this.bucket = requireNonNull(bucket, "bucket is null");
        this.scratchDirectory = requireNonNull(scratchDirectory, "scratchDirectory is null");
    }

    /** Ensures every object is stored; returns them by key, in the order given. */
    public Map<String, StoredObject> ensure(List<? extends GeneratedObject> objects) throws IOException {
        Map<String, StoredObject> stored = new LinkedHashMap<>();
        List<GeneratedObject> missing = new ArrayList<>();
        for (GeneratedObject object : objects) {
            Optional<StoredObject> existing = existing(object);
            if (existing.isPresent()) {
                stored.put(object.key(), existing.get());
            } else {
                missing.add(object);
            }
        }
        if (!missing.isEmpty()) {
            long work = 2
                    * missing.stream()
                            .mapToLong(GeneratedObject::approximateSize)
                            .sum();
            try (ProgressBar bar = new ProgressBarBuilder()
                    .setTaskName("Generating " + missing.size() + " object(s)")
                    .setInitialMax(work)
                    .setUnit(" MB", MEGABYTE)
                    .showSpeed()
                    .build()) {
                for (GeneratedObject object : missing) {
                    stored.put(object.key(), generate(object, bar));
                }
            }
        }
        Map<String, StoredObject> inOrder = new LinkedHashMap<>();
        objects.forEach(object -> inOrder.put(object.key(), stored.get(object.key())));
        return inOrder;
    }

    private static InputStream open(Path file) {
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read generated file " + file, e);
        }
    }

    private Optional<StoredObject> existing(GeneratedObject object) {
        try {
            HeadObjectResponse head =
                    s3.headObject(request -> request.bucket(bucket).key(object.key()));
            if (object.marker().equals(head.metadata().get(MARKER_METADATA))) {
                return Optional.of(new StoredObject(object.key(), head.contentLength(), head.eTag()));
            }
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private StoredObject generate(GeneratedObject object, ProgressBar bar) throws IOException {
        bar.setExtraMessage(object.key());
        Path file = Files.createTempFile(scratchDirectory, "generated-", ".tmp");
        try {
            object.writeTo(file, bar::stepBy);
            long length = Files.size(file);
            bar.maxHint(bar.getMax() - object.approximateSize() + length); // the actual size, now known
            // The SDK may read the body more than once (signing, a retry): each read opens the file again, and
            // the bar follows the furthest any read got rather than adding them up.
            long uploadStart = bar.getCurrent();
            LongAccumulator furthest = new LongAccumulator(Math::max, 0);
            ContentStreamProvider body = () -> new PositionReportingInputStream(open(file), position -> {
                furthest.accumulate(position);
                bar.stepTo(uploadStart + furthest.get());
            });
            PutObjectResponse put = s3.putObject(
                    request -> request.bucket(bucket)
                            .key(object.key())
                            .contentLength(length)
                            .metadata(Map.of(MARKER_METADATA, object.marker())),
                    RequestBody.fromContentProvider(body, length, "application/octet-stream"));
            return new StoredObject(object.key(), length, put.eTag());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
