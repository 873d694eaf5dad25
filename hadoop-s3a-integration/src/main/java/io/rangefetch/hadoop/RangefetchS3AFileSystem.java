package io.rangefetch.hadoop;

import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;

import io.rangefetch.OpenOptions;
import io.rangefetch.SharedFactories;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
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
 * S3A with Rangefetch's streams, for the Hadoop lines without S3A's stream factory seam (3.3.4 to 3.4.1: Spark 3.5's
 * and 4.0's): {@code fs.s3a.impl=io.rangefetch.hadoop.RangefetchS3AFileSystem}. Everything but reading is S3A's
 * (listing, writing, renames, committers, credentials, delegation tokens); {@link #open(Path, int)} and
 * {@code openFile} return Rangefetch streams ({@link RangefetchFSInputStream}: positioned, byte-buffer and vectored
 * reads, unbuffer, IOStatistics), opened with the length and ETag S3A knows: from the file status an
 * {@code openFile} caller passed, or {@code fs.option.openfile.length}, else S3A's own HEAD, as S3A's open sends.
 * On Hadoop 3.4.2 and later the stream factory ({@link RangefetchStreamFactory}) is the way; this class works there
 * too.
 *
 * <p><b>Requests.</b> Every GET goes out through the file system's {@link GetRoute}, once, in an audit span of the
 * stream that asked. On 3.4.0 and later that is S3A's request factory (bucket, SSE-C key, requester-pays) and S3A's
 * own SDK v2 client, so its credentials, endpoint and client settings apply ({@link S3AClientRoute}). On 3.3.x S3A's
 * client is SDK v1's: the GETs go through an SDK v2 client built from S3A's settings and signed with S3A's own
 * credential chain ({@link S3ASettingsClientRoute}, which lists what carries over). The Rangefetch factory behind the
 * streams is shared, as the stream factory's is ({@link SharedS3AFactory}: one budget and one pool for every file
 * system of the same identity and settings: user, {@code fs.s3a.} settings, credential providers' secrets), and sends
 * through the file system of a stream open on the object ({@link StreamCallbacksS3Client}), which has that identity
 * too.
 *
 * <p><b>What stays S3A's.</b> Client-side encryption (CSE-KMS, CSE-CUSTOM) decrypts in S3A's encryption client,
 * which Rangefetch's ranged reads cannot use: with it, {@code open} is S3A's own; so it is on 3.3.x for settings the
 * built client cannot carry (access points, custom signers or client factories) or without the SDK v2 modules, each
 * said once in a warning. S3A's option parsing ({@link OpenFileParser}: S3A's own from 3.3.5) decides the read policy, the change
 * detection policy, the length and which mandatory options are refused, so an {@code openFile} means what it means
 * to S3A.
 */
public class RangefetchS3AFileSystem extends S3AFileSystem {
    private static final Logger LOG = LoggerFactory.getLogger(RangefetchS3AFileSystem.class);
    private static final AtomicBoolean CSE_WARNED = new AtomicBoolean();
    private static final AtomicBoolean S3A_STREAMS_WARNED = new AtomicBoolean();

    private volatile SharedFactories.Lease<SharedS3AFactory> lease;
    private StreamConfig config;
    private OpenFileParser openFiles;
    // null: this file system's files are read by S3A's own streams (client-side encryption, or what the route says)
    private GetRoute route;

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
        // S3A's own option parser from 3.3.5; 3.3.4's options otherwise
        openFiles = HadoopLine.OPEN_FILE_SUPPORT
                ? new OpenFileSupportParser(this, conf)
                : new Hadoop334OpenFileParser(this);
        if (getS3EncryptionAlgorithm().name().startsWith("CSE")) {
            if (CSE_WARNED.compareAndSet(false, true)) {
                LOG.warn(
                        "{} uses client-side encryption ({}): its files are read by S3A's own streams, not"
                                + " Rangefetch's",
                        name,
                        getS3EncryptionAlgorithm());
            }
            return;
        }
        route = route(name, conf);
        if (route != null) {
            // no factory (cache, threads) for a file system whose reads are all S3A's
            lease = SharedS3AFactory.lease(this, conf, config);
        }
    }

    @Override
    public FSDataInputStream open(Path file, int bufferSize) throws IOException {
        if (route == null) {
            return super.open(file, bufferSize);
        }
        return open(qualify(file), openFiles.simple(bufferSize));
    }

    /**
     * What {@code FileSystem.openFile(path).build()} reaches. The options are checked now (an unknown mandatory one
     * fails here, as in S3A); the open itself fails through the future, as S3A's does.
     */
    @Override
    public CompletableFuture<FSDataInputStream> openFileWithOptions(Path rawPath, OpenFileParameters parameters)
            throws IOException {
        if (route == null) {
            return super.openFileWithOptions(rawPath, parameters);
        }
        Path path = qualify(rawPath);
        OpenFileParser.Request information = openFiles.prepare(path, parameters, getDefaultBlockSize());
        CompletableFuture<FSDataInputStream> opened = new CompletableFuture<>();
        try {
            opened.complete(open(path, information));
        } catch (IOException | RuntimeException e) {
            opened.completeExceptionally(e);
        }
        return opened;
    }

    private FSDataInputStream open(Path path, OpenFileParser.Request information) throws IOException {
        SharedFactories.Lease<SharedS3AFactory> leased = lease;
        if (leased == null) {
            throw new IOException("File system is closed: cannot open " + path);
        }
        S3AFileStatus status = information.status();
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
        OpenOptions options = OpenOptionsFromS3A.of(
                key,
                status.getLen(),
                status.getEtag(),
                status.getVersionId(),
                information.inputPolicy(),
                information.changePolicy(),
                config.get(FORMAT_EXTENSIONS));
        S3AInputStreamStatistics streamStatistics = getInstrumentation().newInputStreamStatistics(statistics);
        FileSystemSender sender = new FileSystemSender(route, createSpan("op_open", path.toString(), null));
        StreamCallbacksS3Client requests = leased.value().requests();
        requests.register(bucket, key, sender);
        RangefetchFSInputStream.Binding binding = new RangefetchFSInputStream.Binding() {
            @Override
            public void released() {
                requests.unregister(bucket, key, sender);
                sender.span.close();
            }

            @Override
            public void closed(RangefetchIOStatistics ioStatistics) {
                if (HadoopLine.IOSTATISTICS_CONTEXT) {
                    // the thread's context (Hadoop 3.3.5 and later), which Spark's and S3A's committers read
                    IOStatisticsContext.getCurrentIOStatisticsContext()
                            .getAggregator()
                            .aggregate(ioStatistics);
                }
                streamStatistics.close();
            }
        };
        try {
            return new FSDataInputStream(new RangefetchFSInputStream(
                    leased.value().factory(),
                    new S3Location(bucket, key),
                    "s3a://" + bucket + "/" + key,
                    status.getLen(),
                    options,
                    String.valueOf(information.inputPolicy()).toLowerCase(Locale.ROOT),
                    streamStatistics,
                    statistics,
                    binding));
        } catch (RuntimeException e) {
            binding.released();
            throw e;
        }
    }

    /**
     * Where this file system's GETs go: S3A's own SDK v2 client (Hadoop 3.4.0 and later), else one built from S3A's
     * settings (3.3.x, whose S3A client is SDK v1's); null when neither can serve (settings the built client cannot
     * carry, or no SDK v2 HTTP client on the class path), and the file system then reads with S3A's streams.
     */
    private GetRoute route(URI name, Configuration conf) throws IOException {
        if (HadoopLine.S3A_SDK_V2_CLIENT) {
            // 3.4.0 and later: S3A's client is an SDK v2 one a subclass can reach
            return new S3AClientRoute(this);
        }
        Optional<String> unsupported = S3ASettingsClientRoute.unsupported(conf);
        if (unsupported.isPresent()) {
            warnS3AStreams(name, unsupported.get());
            return null;
        }
        try {
            return S3ASettingsClientRoute.of(this);
        } catch (LinkageError e) {
            warnS3AStreams(
                    name,
                    "the AWS SDK v2 modules Rangefetch needs beside Hadoop 3.3's SDK v1 are missing"
                            + " (software.amazon.awssdk:s3 and apache-client): " + e);
            return null;
        }
    }

    private static void warnS3AStreams(URI name, String why) {
        if (S3A_STREAMS_WARNED.compareAndSet(false, true)) {
            LOG.warn("{}: its files are read by S3A's own streams, not Rangefetch's: {}", name, why);
        }
    }

    /** Gives the file system's lease on the shared Rangefetch factory back after S3A closes. */
    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            SharedFactories.Lease<SharedS3AFactory> leased = lease;
            lease = null;
            try {
                if (leased != null) {
                    leased.release();
                }
            } finally {
                GetRoute closing = route;
                if (closing != null) {
                    closing.close();
                }
            }
        }
    }

    /**
     * How a stream of this file system sends a GET: through the file system's {@link GetRoute}, in the stream's audit
     * span, activated on whichever thread sends (a Rangefetch fetch thread, mostly).
     */
    private static final class FileSystemSender implements StreamCallbacksS3Client.Sender {
        private final GetRoute route;
        private final AuditSpan span;

        FileSystemSender(GetRoute route, AuditSpan span) {
            this.route = route;
            this.span = span;
        }

        @Override
        public GetObjectRequest.Builder newGetRequestBuilder(String key) {
            span.activate();
            try {
                return route.newGetRequestBuilder(key);
            } finally {
                span.deactivate();
            }
        }

        @Override
        public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) throws IOException {
            S3Client client = route.client();
            span.activate();
            try {
                return client.getObject(request);
            } finally {
                span.deactivate();
            }
        }
    }
}
