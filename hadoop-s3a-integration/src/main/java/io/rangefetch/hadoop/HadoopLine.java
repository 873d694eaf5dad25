package io.rangefetch.hadoop;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * What the running Hadoop line has, for the code that serves several (3.3.4 to 3.5): each feature is probed once,
 * by the name of a class it brought, without loading what the line lacks. The code that needs a feature is in
 * classes loaded only where the feature is.
 */
final class HadoopLine {
    /** {@code FileRange} and {@code readVectored} (3.3.5 and later). */
    static final boolean VECTORED_READS = has(FileSystem.class, "org.apache.hadoop.fs.FileRange");

    /** The thread's IOStatistics context (3.3.5 and later). */
    static final boolean IOSTATISTICS_CONTEXT =
            has(FileSystem.class, "org.apache.hadoop.fs.statistics.IOStatisticsContext");

    /** S3A's {@code openFile} option parser and the {@code fs.option.openfile.*} keys (3.3.5 and later). */
    static final boolean OPEN_FILE_SUPPORT = has(S3AFileSystem.class, "org.apache.hadoop.fs.s3a.impl.OpenFileSupport");

    /** S3A's AWS SDK v2 client, reachable by a subclass through {@code getS3AInternals()} (3.4.0 and later). */
    static final boolean S3A_SDK_V2_CLIENT = has(S3AFileSystem.class, "org.apache.hadoop.fs.s3a.S3AInternals");

    private HadoopLine() {}

    /** Whether {@code className} is there, asked of the loader of the jar it would be in ({@code anchor}'s). */
    private static boolean has(Class<?> anchor, String className) {
        try {
            Class.forName(className, false, anchor.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
