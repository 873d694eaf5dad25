package io.rangefetch.hadoop;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import java.io.IOException;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.VectoredIOContext;
import org.apache.hadoop.fs.s3a.impl.streams.AbstractObjectInputStreamFactory;
import org.apache.hadoop.fs.s3a.impl.streams.InputStreamType;
import org.apache.hadoop.fs.s3a.impl.streams.ObjectInputStream;
import org.apache.hadoop.fs.s3a.impl.streams.ObjectReadParameters;
import org.apache.hadoop.fs.s3a.impl.streams.StreamFactoryRequirements;
import org.apache.hadoop.fs.s3a.impl.streams.StreamIntegration;

/**
 * S3A's input stream factory for Rangefetch: with {@code fs.s3a.input.stream.type=custom} and
 * {@code fs.s3a.input.stream.custom.factory=io.rangefetch.hadoop.RangefetchStreamFactory} (also per bucket, as
 * {@code fs.s3a.bucket.<b>.input.stream.type}), every stream an S3A file system opens is a Rangefetch stream.
 *
 * <p><b>Life cycle.</b> S3A creates one factory per file system and runs it as a service: {@code serviceInit}
 * reads the {@code fs.s3a.rangefetch.*} settings (S3A has already folded the file system's bucket's
 * {@code fs.s3a.bucket.<b>.rangefetch.*} overrides into them) and fails on a bad one, naming the key;
 * {@code serviceStart} leases the Rangefetch {@link StreamFactory} (its block cache, its threads) that serves every
 * stream of the file system, shared with every other file system of the same identity and settings in the JVM (the
 * same user, {@code fs.s3a.} settings and credential providers' secrets: {@link SharedS3AFactory}); {@code serviceStop}
 * gives the lease back, and {@code fs.s3a.rangefetch.factory.linger} after the last one the factory closes, stopping
 * its threads. A file system never closed gives its lease back when it is collected.
 * With Hadoop's file system cache (the default) that is one factory per bucket and user, as before; with
 * {@code fs.s3a.impl.disable.cache=true}, where engines make a file system per task, it is still one budget and one
 * pool, not one per file system.
 *
 * <p><b>Requests.</b> The Rangefetch factory sends its GETs through {@link StreamCallbacksS3Client}, which hands
 * each to the S3A callbacks of an open stream of that object: S3A's client, credentials, audit span, SSE-C and
 * client-side encryption apply, and S3A sends each request once (its {@code getObject} callback does not retry):
 * Rangefetch's retries, resumes and throttle governor are the only ones above the SDK's own.
 *
 * <p>Works with Hadoop 3.4.2 and later: it calls neither of the factory callbacks' client getters (which differ
 * between 3.4.2 and 3.4.3) and nothing 3.4.3 added.
 */
public final class RangefetchStreamFactory extends AbstractObjectInputStreamFactory {
    /** The prefix of Rangefetch's own settings in a Hadoop configuration, the {@link StreamConfig} keys after it. */
    public static final String CONFIG_PREFIX = HadoopSettings.CONFIG_PREFIX;

    private StreamConfig config;
    private Configuration conf;
    private volatile SharedFactories.Lease<SharedS3AFactory> lease;

    /** The constructor S3A calls; the settings come in {@code serviceInit}. */
    public RangefetchStreamFactory() {
        super("RangefetchStreamFactory");
    }

    @Override
    protected void serviceInit(Configuration conf) throws Exception {
        super.serviceInit(conf);
        config = HadoopSettings.streamConfig(conf);
        this.conf = conf;
    }

    @Override
    protected void serviceStart() throws Exception {
        lease = SharedS3AFactory.lease(this, conf, config);
        super.serviceStart();
    }

    @Override
    protected void serviceStop() throws Exception {
        SharedFactories.Lease<SharedS3AFactory> started = lease;
        if (started != null) {
            started.release();
        }
        super.serviceStop();
    }

    @Override
    public ObjectInputStream readObject(ObjectReadParameters parameters) throws IOException {
        SharedFactories.Lease<SharedS3AFactory> started = lease;
        // stopped: the lease is given back and the shared factory may serve other file systems still; not this one
        if (started == null || isInState(STATE.STOPPED)) {
            throw new IOException("Rangefetch stream factory is " + getServiceState() + ", not started: cannot open "
                    + parameters.getObjectAttributes().getPath());
        }
        return new RangefetchObjectInputStream(
                parameters, started.value().factory(), started.value().requests(), this);
    }

    @Override
    public StreamFactoryRequirements factoryRequirements() {
        VectoredIOContext vectored = StreamIntegration.populateVectoredIOContext(getConfig());
        // Rangefetch merges a vectored read's ranges itself, across the gaps its settings allow; merging before
        // it would fetch bytes nobody asked for and hide the ranges from its planner
        vectored.setMinSeekForVectoredReads(0);
        // no S3A threads: Rangefetch's fetches run on its own factory's threads
        return new StreamFactoryRequirements(0, 0, vectored);
    }

    @Override
    public InputStreamType streamType() {
        return InputStreamType.Custom;
    }

    @Override
    public boolean hasCapability(String capability) {
        return RangefetchFSInputStream.CAPABILITIES.contains(capability.toLowerCase(Locale.ROOT))
                || super.hasCapability(capability);
    }

    /**
     * The Rangefetch factory serving this file system's streams, once started: its statistics, its cache. It is
     * shared with the file systems of the same identity and settings, so its figures count their reads too.
     */
    public StreamFactory rangefetch() {
        SharedFactories.Lease<SharedS3AFactory> started = lease;
        if (started == null) {
            throw new IllegalStateException("Rangefetch stream factory is " + getServiceState() + ", not started");
        }
        return started.value().factory();
    }

    @Override
    public String toString() {
        return "RangefetchStreamFactory{state=" + getServiceState() + ", config=" + config + "}";
    }
}
