package io.rangefetch.hadoop;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.Constants;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.impl.OpenFileSupport;

/**
 * S3A's own option parser ({@link OpenFileSupport}, Hadoop 3.3.5 and later): the {@code fs.option.openfile.*} keys
 * (read policy, length, split), S3A's own, the status's ETag and version, and which mandatory options are refused.
 * Loaded only where {@code OpenFileSupport} exists.
 */
final class OpenFileSupportParser implements OpenFileParser {
    private final OpenFileSupport support;

    OpenFileSupportParser(S3AFileSystem fileSystem, Configuration conf) {
        this.support = new OpenFileSupport(
                fileSystem.getChangeDetectionPolicy(),
                conf.getLongBytes(Constants.READAHEAD_RANGE, Constants.DEFAULT_READAHEAD_RANGE),
                fileSystem.getUsername(),
                conf.getInt("io.file.buffer.size", 4096),
                conf.getLongBytes(Constants.ASYNC_DRAIN_THRESHOLD, Constants.DEFAULT_ASYNC_DRAIN_THRESHOLD),
                fileSystem.getInputPolicy());
    }

    @Override
    public Request simple(int bufferSize) {
        return of(support.openSimpleFile(bufferSize));
    }

    @Override
    public Request prepare(Path path, OpenFileParameters parameters, long blockSize) throws IOException {
        return of(support.prepareToOpenFile(path, parameters, blockSize));
    }

    private static Request of(OpenFileSupport.OpenFileInformation information) {
        return new Request(information.getStatus(), information.getInputPolicy(), information.getChangePolicy());
    }
}
