package io.rangefetch.hadoop;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AInputPolicy;
import org.apache.hadoop.fs.s3a.impl.ChangeDetectionPolicy;

/**
 * How a {@link RangefetchS3AFileSystem} reads what an open asks for: S3A's own option parser where the Hadoop line
 * has it (3.3.5 and later, {@link OpenFileSupportParser}), else the options Hadoop 3.3.4's S3A knew
 * ({@link Hadoop334OpenFileParser}). Either way an open means what it means to that line's S3A.
 */
interface OpenFileParser {
    /** What an open asks: the status S3A knows (null: look it up), the read policy and the change policy. */
    record Request(S3AFileStatus status, S3AInputPolicy inputPolicy, ChangeDetectionPolicy changePolicy) {}

    /** A plain {@code open(path, bufferSize)}. */
    Request simple(int bufferSize);

    /**
     * An {@code openFile(path)...build()}: refuses a mandatory option this line's S3A does not know with
     * {@code IllegalArgumentException}, and a status of a directory with {@code FileNotFoundException}.
     */
    Request prepare(Path path, OpenFileParameters parameters, long blockSize) throws IOException;
}
