package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.SseCustomerKey;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * What the caller already knows about an object, and how it will read it. Knowing the length and the ETag
 * (from a listing, a manifest or a table's metadata) saves the stream every request it would make to learn
 * them. An ETag given here pins the stream: if the object no longer has it, reads fail with
 * {@link ObjectChangedException} instead of moving to the new version.
 */
public final class OpenOptions {
    private static final OpenOptions DEFAULTS = builder().build();

    private final long length;
    private final String etag;
    private final String versionId;
    private final ReadPolicy readPolicy;
    private final SseCustomerKey sseCustomerKey;
    private final IdentityProvider<? extends AwsCredentialsIdentity> credentials;
    private final long splitStart;
    private final long splitEnd;

    private OpenOptions(Builder builder) {
        this.length = builder.length;
        this.etag = builder.etag;
        this.versionId = builder.versionId;
        this.readPolicy = builder.readPolicy;
        this.sseCustomerKey = builder.sseCustomerKey;
        this.credentials = builder.credentials;
        this.splitStart = builder.splitStart;
        this.splitEnd = builder.splitEnd;
    }

    public static OpenOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Options that open exactly the version a listing found: its length and ETag, so the stream sends no HEAD and
     * fails with {@link ObjectChangedException} rather than read another version.
     */
    public static OpenOptions of(ListedObject listed) {
        requireNonNull(listed, "listed is null");
        return builder().length(listed.length()).etag(listed.etag()).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public OptionalLong length() {
        return length < 0 ? OptionalLong.empty() : OptionalLong.of(length);
    }

    public Optional<String> etag() {
        return Optional.ofNullable(etag);
    }

    public Optional<String> versionId() {
        return Optional.ofNullable(versionId);
    }

    public ReadPolicy readPolicy() {
        return readPolicy;
    }

    public Optional<SseCustomerKey> sseCustomerKey() {
        return Optional.ofNullable(sseCustomerKey);
    }

    /** The credentials the stream's requests are signed with, when not its factory's client's own. */
    public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** Where the part of the object this reader is given (a task's split) starts, if it was given one. */
    public OptionalLong splitStart() {
        return splitEnd < 0 ? OptionalLong.empty() : OptionalLong.of(splitStart);
    }

    /** Where that split ends (exclusive): prefetch stops there; a reader finishing a record past it still reads. */
    public OptionalLong splitEnd() {
        return splitEnd < 0 ? OptionalLong.empty() : OptionalLong.of(splitEnd);
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.length = length;
        builder.etag = etag;
        builder.versionId = versionId;
        builder.readPolicy = readPolicy;
        builder.sseCustomerKey = sseCustomerKey;
        builder.credentials = credentials;
        builder.splitStart = splitStart;
        builder.splitEnd = splitEnd;
        return builder;
    }

    @Override
    public String toString() {
        return "OpenOptions{length=" + length + ", etag=" + etag + ", versionId=" + versionId
                + ", readPolicy=" + readPolicy + (splitEnd < 0 ? "" : ", split=[" + splitStart + ", " + splitEnd + ")")
                + ", sse=" + (sseCustomerKey != null) + ", credentials=" + (credentials == null ? "client's" : "own")
                + "}";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private long length = -1;
        private String etag;
        private String versionId;
        private ReadPolicy readPolicy = ReadPolicy.AUTO;
        private SseCustomerKey sseCustomerKey;
        private IdentityProvider<? extends AwsCredentialsIdentity> credentials;
        private long splitStart;
        private long splitEnd = -1;

        private Builder() {}

        /** The object's length in bytes, when known (a listing gives it). */
        public Builder length(long length) {
            if (length < 0) {
                throw new IllegalArgumentException("Object length must not be negative, got " + length);
            }
            this.length = length;
            return this;
        }

        /**
         * The ETag of the version to read; reads fail if the object no longer has it. As S3 sends it, quoted; an
         * unquoted one (AWS SDK v1 strips the quotes, so Hadoop 3.3's S3A file statuses hold them bare) is quoted
         * here, so it matches what every GET answers.
         */
        public Builder etag(String etag) {
            requireNonNull(etag, "etag is null");
            if (etag.isBlank()) {
                throw new IllegalArgumentException("ETag is blank");
            }
            boolean quoted =
                    etag.length() >= 2 && etag.endsWith("\"") && (etag.startsWith("\"") || etag.startsWith("W/\""));
            this.etag = quoted ? etag : '"' + etag + '"';
            return this;
        }

        /** The S3 version id to read, on a versioned bucket. */
        public Builder versionId(String versionId) {
            requireNonNull(versionId, "versionId is null");
            this.versionId = versionId;
            return this;
        }

        public Builder readPolicy(ReadPolicy readPolicy) {
            this.readPolicy = requireNonNull(readPolicy, "readPolicy is null");
            return this;
        }

        /**
         * The part {@code [start, end)} of the object this reader is given, as a task's split of a text file: a
         * format policy reads ahead from {@code start} and never prefetches past {@code end}.
         */
        public Builder split(long start, long end) {
            if (start < 0 || end < start) {
                throw new IllegalArgumentException(
                        "A split must have 0 <= start <= end, got [" + start + ", " + end + ")");
            }
            this.splitStart = start;
            this.splitEnd = end;
            return this;
        }

        /**
         * The SSE-C key the object was written with, as base64 of 32 bytes. It goes on every request of the stream,
         * and is part of the stream's identity: what streams with another key or none fetched is never served to it.
         */
        public Builder sseCustomerKey(String base64Key) {
            this.sseCustomerKey = SseCustomerKey.ofBase64(base64Key);
            return this;
        }

        /** The SSE-C key the object was written with (see {@link #sseCustomerKey(String)}). */
        public Builder sseCustomerKey(SseCustomerKey key) {
            this.sseCustomerKey = requireNonNull(key, "key is null");
            return this;
        }

        /**
         * Signs every request of the stream with {@code credentials} instead of the factory's client's own (any
         * {@code AwsCredentialsProvider}). They are the stream's identity: it is served only what streams signing as
         * the same principal fetched (see {@code StreamFactory}), and none of its requests goes out under other
         * credentials. Resolved once as the stream opens, and by the client for every request after.
         */
        public Builder credentials(IdentityProvider<? extends AwsCredentialsIdentity> credentials) {
            this.credentials = requireNonNull(credentials, "credentials is null");
            return this;
        }

        public OpenOptions build() {
            return new OpenOptions(this);
        }
    }

    /** A hint from the caller about how a stream will be read. */
    public enum ReadPolicy {
        /** Rangefetch watches the reads and decides. */
        AUTO,
        /** Front to back: read ahead from the first read on, and fetch the start of an unknown-length object large. */
        SEQUENTIAL,
        /** Scattered reads: never prefetch, never fetch more than the minimum request around a read. */
        RANDOM,
        /** A columnar file (Parquet, ORC): scattered reads of large chunks; the format comes from the key's extension. */
        COLUMNAR,
        /** A Parquet file, whatever its key: the {@code parquet} format policy reads it (from rangefetch-parquet). */
        PARQUET,
        /** An ORC file, whatever its key: the {@code orc} format policy reads it. */
        ORC,
        /** Text (CSV, JSON lines, logs), whatever its key: the {@code text} policy reads it front to back. */
        TEXT;

        /** The format policy this hint names, if it names one: SEQUENTIAL reads as text does. */
        public Optional<String> formatName() {
            return switch (this) {
                case PARQUET -> Optional.of("parquet");
                case ORC -> Optional.of("orc");
                case TEXT, SEQUENTIAL -> Optional.of("text");
                case AUTO, RANDOM, COLUMNAR -> Optional.empty();
            };
        }
    }
}
