package io.rangefetch.hadoop;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's contract binding for S3A with Rangefetch's streams (the stream factory, or the file system for a test
 * class marked {@link ProxiedS3A.ThroughFileSystem}) on one of the run's servers ({@link
 * ProxiedS3A}, through its proxy); hadoop-aws publishes no tests jar, so its own binding is not available. The
 * options (what S3A promises: a blob store, seek past the end rejected, unbuffer supported...) are in {@code
 * contract/s3a-rangefetch.xml}.
 */
final class S3AContract extends AbstractFSContract {
    private final ProxiedS3A s3a;
    private final Class<?> testClass;
    private FileSystem fileSystem;

    /** The binding for {@code testClass}: its backend, and its entry point ({@link ProxiedS3A#withRangefetchFor}). */
    S3AContract(Configuration conf, Class<?> testClass) {
        super(conf);
        this.s3a = ProxiedS3A.of(testClass);
        this.testClass = testClass;
        addConfResource("contract/s3a-rangefetch.xml");
    }

    @Override
    public void init() throws IOException {
        super.init();
        Configuration conf = s3a.s3aConfiguration();
        // the suites' own settings (the contract options, a vectored read's merge settings) come along
        getConf().forEach(entry -> conf.set(entry.getKey(), entry.getValue()));
        ProxiedS3A.withRangefetchFor(testClass, conf);
        fileSystem = FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf);
    }

    @Override
    public void teardown() throws IOException {
        if (fileSystem != null) {
            fileSystem.close();
        }
        super.teardown();
    }

    @Override
    public FileSystem getTestFileSystem() {
        return fileSystem;
    }

    @Override
    public String getScheme() {
        return "s3a";
    }

    @Override
    public Path getTestPath() {
        return new Path("/contract-test");
    }
}
