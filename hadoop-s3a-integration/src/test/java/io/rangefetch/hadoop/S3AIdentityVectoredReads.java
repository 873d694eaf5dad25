package io.rangefetch.hadoop;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * {@link S3AIdentitySuite}'s vectored reads, on the Hadoop lines that have them (3.3.5 and later): the suite loads this
 * class by name, so it compiles on 3.3.4, where this file is left out.
 */
final class S3AIdentityVectoredReads implements S3AIdentitySuite.VectoredReads {
    private static final long TIMEOUT_SECONDS = 120;

    @Override
    public List<byte[]> read(FSDataInputStream in, List<S3AIdentitySuite.Range> ranges) throws Exception {
        List<FileRange> hadoopRanges = new ArrayList<>(ranges.size());
        for (S3AIdentitySuite.Range range : ranges) {
            hadoopRanges.add(FileRange.createFileRange(range.offset(), range.length()));
        }
        in.readVectored(hadoopRanges, ByteBuffer::allocate);
        List<byte[]> read = new ArrayList<>(hadoopRanges.size());
        for (FileRange range : hadoopRanges) {
            ByteBuffer data = FutureIO.awaitFuture(range.getData(), TIMEOUT_SECONDS, TimeUnit.SECONDS);
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            read.add(bytes);
        }
        return read;
    }
}
