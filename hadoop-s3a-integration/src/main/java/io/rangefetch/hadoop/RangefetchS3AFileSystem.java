package io.rangefetch.hadoop;

import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;

import io.rangefetch.OpenOptions;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.Constants;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.impl.OpenFileSupport;
import org.apache.hadoop.fs.s3a.statistics.S3AInputStreamStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsContext;
import org.apache.hadoop.fs.store.audit.AuditSpan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * S3A with Rangefetch's streams, for the Hadoop lines without S3A's stream factory seam (3.4.0 and 3.4.1, Spark
 * 4.0's): {@code fs.s3a.impl=io.rangefetch.hadoop.RangefetchS3AFileSystem}. Everything but reading is S3A's
 * (listing, writing, renames, committers, credentials, delegation tokens); {@link #open(Path, int)} and
 * {@code openFile} return Rangefetch streams ({@link RangefetchFSInputStream}: positioned, byte-buffer and vectored
 * reads, unbuffer, IOStatistics), opened with the length and ETag S3A knows: from the file status an
 * {@code openFile} caller passed, or {@code fs.option.openfile.length}, else S3A's own HEAD, as S3A's open sends.
 * On Hadoop 3.4.2 and later the stream factory ({@link RangefetchStreamFactory}) is the way; this class works there
 * too.
 *
 * <p><b>Requests.</b> Every GET goes out as S3A would send it: S3A's request factory builds it (bucket, SSE-C key,
 * requester-pays), S3A's own SDK client sends it (so its credentials, endpoint and client settings apply) once, in
 * an audit span of the stream that asked. The Rangefetch factory behind the streams is shared, as the stream
 * factory's is ({@link SharedStreamFactories}: one budget and one pool for every file system with the same user
 * and {@code fs.s3a.} settings), and sends through the file system of a stream open on the object
 * ({@link StreamCallbacksS3Client}).
 *
 * <p><b>What stays S3A's.</b> Client-side encryption (CSE-KMS, CSE-CUSTOM) decrypts in S3A's encryption client,
 * which Rangefetch's ranged reads cannot use: with it, {@code open} is S3A's own. S3A's option parsing
 * ({@link OpenFileSupport}) decides the read policy, the change detection policy, the length and which mandatory
 * options are refused, so an {@code openFile} means what it means to S3A.
 */
public class RangefetchS3AFileSystem extends S3AFileSystem {
    private static final Logger LOG = LoggerFactory.getLogger(RangefetchS3AFileSystem.class);
    private static final AtomicBoolean CSE_WARNED = new AtomicBoolean();
    private static final AtomicBoolean V1_WARNED = new AtomicBoolean();

    private volatile SharedStreamFactories.Lease lease;
    private StreamConfig config;
    private OpenFileSupport openFiles;
    private boolean clientSideEncryption;
    private boolean s3aStreamsOnly;

    @Override
    public void initialize(URI name, Configuration originalConf) throws IOException {
        super.initialize(name, originalConf);
        try {
            bindRangefetch(name);
        } catch (IOException | RuntimeException e) {
            // nobody else can close what S3A started (its threads, its client): the caller never gets this instance
            try {
                close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private void bindRangefetch(URI name) throws IOException {
        // the configuration with the bucket's fs.s3a.bucket.<b>.* options folded in, as S3A keeps it
        Configuration conf = getConf();
        config = HadoopSettings.streamConfig(conf);
        openFiles = new OpenFileSupport(
                getChangeDetectionPolicy(),
                conf.getLongBytes(Constants.READAHEAD_RANGE, Constants.DEFAULT_READAHEAD_RANGE),
                getUsername(),
                conf.getInt("io.file.buffer.size", 4096),
                conf.getLongBytes(Constants.ASYNC_DRAIN_THRESHOLD, Constants.DEFAULT_ASYNC_DRAIN_THRESHOLD),
                getInputPolicy());
        clientSideEncryption = getS3EncryptionAlgorithm().name().startsWith("CSE");
        if (clientSideEncryption && CSE_WARNED.compareAndSet(false, true)) {
            LOG.warn(
                    "{} uses client-side encryption ({}): its files are read by S3A's own streams, not Rangefetch's",
                    name,
                    getS3EncryptionAlgorithm());
        }
        if (!hasSdkV2Client()) {
            // Hadoop 3.3.x: S3A's client is the SDK v1 one, which Rangefetch's requests cannot go through yet
            s3aStreamsOnly = true;
            if (V1_WARNED.compareAndSet(false, true)) {
                LOG.warn(
                        "{}: this Hadoop's S3A has no AWS SDK v2 client (Hadoop 3.3.x): its files are read by S3A's"
                                + " own streams, not Rangefetch's",
                        name);
            }
        }
        lease = SharedStreamFactories.lease(this, SharedStreamFactories.Identity.of(conf), config);
    }

    @Override
    public FSDataInputStream open(Path file, int bufferSize) throws IOException {
        if (clientSideEncryption || s3aStreamsOnly) {
            return super.open(file, bufferSize);
        }
        return open(qualify(file), openFiles.openSimpleFile(bufferSize));
    }

    /**
     * What {@code FileSystem.openFile(path).build()} reaches. The options are checked now (an unknown mandatory one
     * fails here, as in S3A); the open itself fails through the future, as S3A's does.
     */
    @Override
    public CompletableFuture<FSDataInputStream> openFileWithOptions(Path rawPath, OpenFileParameters parameters)
            throws IOException {
        if (clientSideEncryption || s3aStreamsOnly) {
            return super.openFileWithOptions(rawPath, parameters);
        }
        Path path = qualify(rawPath);
        OpenFileSupport.OpenFileInformation information =
                openFiles.prepareToOpenFile(path, parameters, getDefaultBlockSize());
        CompletableFuture<FSDataInputStream> opened = new CompletableFuture<>();
        try {
            opened.complete(open(path, information));
        } catch (IOException | RuntimeException e) {
            opened.completeExceptionally(e);
        }
        return opened;
    }

    private FSDataInputStream open(Path path, OpenFileSupport.OpenFileInformation information) throws IOException {
        SharedStreamFactories.Lease leased = lease;
        if (leased == null) {
            throw new IOException("File system is closed: cannot open " + path);
        }
        S3AFileStatus status = information.getStatus();
        if (status == null) {
            FileStatus found = getFileStatus(path);
            if (!(found instanceof S3AFileStatus s3aStatus)) {
                throw new IOException("S3A answered a status of another kind for " + path + ": " + found);
            }
            status = s3aStatus;
        }
        if (status.isDirectory()) {
            throw new FileNotFoundException("Can't open " + path + " because it is a directory");
        }
        String bucket = getBucket();
        String key = pathToKey(path);
        OpenOptions options = S3AOpenOptions.of(
                key,
                status.getLen(),
                status.getEtag(),
                status.getVersionId(),
                information.getInputPolicy(),
                information.getChangePolicy(),
                config.get(FORMAT_EXTENSIONS));
        S3AInputStreamStatistics streamStatistics = getInstrumentation().newInputStreamStatistics(statistics);
        FileSystemSender sender = new FileSystemSender(createSpan("op_open", path.toString(), null));
        StreamCallbacksS3Client requests = leased.requests();
        requests.register(bucket, key, sender);
        RangefetchFSInputStream.Binding binding = new RangefetchFSInputStream.Binding() {
            @Override
            public void released() {
                requests.unregister(bucket, key, sender);
                sender.span.close();
            }

            @Override
            public void closed(RangefetchIOStatistics ioStatistics) {
                IOStatisticsContext.getCurrentIOStatisticsContext()
                        .getAggregator()
                        .aggregate(ioStatistics);
                streamStatistics.close();
            }
        };
        try {
            return new FSDataInputStream(new RangefetchFSInputStream(
                    leased.factory(),
                    new S3Location(bucket, key),
                    "s3a://" + bucket + "/" + key,
                    status.getLen(),
                    options,
                    String.valueOf(information.getInputPolicy()).toLowerCase(Locale.ROOT),
                    streamStatistics,
                    statistics,
                    binding));
        } catch (RuntimeException e) {
            binding.released();
            throw e;
        }
    }

    /** Whether this Hadoop's S3A holds an AWS SDK v2 client (3.4.0 and later) that a subclass can reach. */
    private static boolean hasSdkV2Client() {
        try {
            Class.forName("org.apache.hadoop.fs.s3a.S3AInternals", false, S3AFileSystem.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Gives the file system's lease on the shared Rangefetch factory back after S3A closes. */
    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            SharedStreamFactories.Lease leased = lease;
            lease = null;
            if (leased != null) {
                leased.release();
            }
        }
    }

    /**
     * How a stream of this file system sends a GET: S3A's request factory and S3A's SDK client, in the stream's
     * audit span, activated on whichever thread sends (a Rangefetch fetch thread, mostly).
     */
    private final class FileSystemSender implements StreamCallbacksS3Client.Sender {
        private final AuditSpan span;

        FileSystemSender(AuditSpan span) {
            this.span = span;
        }

        @Override
        public GetObjectRequest.Builder newGetRequestBuilder(String key) {
            span.activate();
            try {
                return getRequestFactory().newGetObjectRequestBuilder(key);
            } finally {
                span.deactivate();
            }
        }

        @Override
        public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) throws IOException {
            S3Client client;
            try {
                client = getS3AInternals().getAmazonS3Client("Rangefetch GET");
            } catch (RuntimeException e) {
                throw new IOException("S3A's client of " + getUri() + " is gone (the file system is closed?)", e);
            }
            if (client == null) {
                throw new IOException("S3A's client of " + getUri() + " is gone: the file system is closed");
            }
            span.activate();
            try {
                return client.getObject(request);
            } finally {
                span.deactivate();
            }
        }
    }
}
