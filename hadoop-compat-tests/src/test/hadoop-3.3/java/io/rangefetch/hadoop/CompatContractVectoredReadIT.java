package io.rangefetch.hadoop;

import java.io.EOFException;
import java.util.List;
import org.apache.hadoop.fs.FileRange;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * {@link RangefetchContractVectoredReadSuite}, Hadoop 3.3's, through {@link RangefetchS3AFileSystem} on MinIO, with
 * heap and direct buffers (the suite's parameter). Three tests are overridden, as S3A 3.3 overrides them for its own
 * streams, because 3.3's generic suite expects what no S3 stream does: Rangefetch refuses overlapping and repeated
 * ranges with {@code IllegalArgumentException}, as Hadoop 3.4 and later specify (S3A 3.3 throws
 * {@code UnsupportedOperationException}), and a range past the end fails the call with {@code EOFException} at once,
 * since the stream knows the length, as S3A 3.3's does.
 */
@ProxiedS3A.ThroughFileSystem
public class CompatContractVectoredReadIT extends RangefetchContractVectoredReadSuite {
    @ClassRule
    public static final MinioClassRule MINIO = new MinioClassRule(CompatContractVectoredReadIT.class);

    public CompatContractVectoredReadIT(String bufferType) {
        super(bufferType);
    }

    @Override
    @Test
    public void testOverlappingRanges() throws Exception {
        verifyExceptionalVectoredRead(getFileSystem(), getSampleOverlappingRanges(), IllegalArgumentException.class);
    }

    @Override
    @Test
    public void testSameRanges() throws Exception {
        verifyExceptionalVectoredRead(getFileSystem(), getSampleSameRanges(), IllegalArgumentException.class);
    }

    @Override
    @Test
    public void testEOFRanges() throws Exception {
        verifyExceptionalVectoredRead(
                getFileSystem(), List.of(FileRange.createFileRange(DATASET_LEN, 100)), EOFException.class);
    }
}
