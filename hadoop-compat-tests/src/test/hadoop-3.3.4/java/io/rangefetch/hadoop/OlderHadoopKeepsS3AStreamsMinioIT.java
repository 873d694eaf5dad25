package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RangefetchS3AFileSystem} on Hadoop 3.3.4 (Spark 3.5's own), which lacks the {@code openFile} options and
 * vectored reads its streams are built on: chosen with {@code fs.s3a.impl} as on later lines, it starts, and reads,
 * writes and opens with S3A's own streams (saying so once in a warning) instead of failing on a missing class.
 */
@ExtendWith(ProxiedS3A.OnMinio.class)
class OlderHadoopKeepsS3AStreamsMinioIT {
    @Test
    void theFileSystemStartsAndReadsWithS3AsOwnStreams() throws Exception {
        ProxiedS3A s3a = ProxiedS3A.of(getClass());
        Configuration conf = ProxiedS3A.withRangefetchFileSystem(s3a.s3aConfiguration());
        byte[] written = new byte[300_000];
        new SplittableRandom(9).nextBytes(written);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf)) {
            assertThat(fs).isInstanceOf(RangefetchS3AFileSystem.class);
            Path path = new Path("/old-hadoop/object.bin");
            try (var out = fs.create(path, true)) {
                out.write(written);
            }
            try (FSDataInputStream in = fs.open(path)) {
                assertThat(in.getWrappedStream()).isInstanceOf(S3AInputStream.class);
                byte[] middle = new byte[1000];
                in.readFully(150_000, middle);
                assertThat(middle).isEqualTo(Arrays.copyOfRange(written, 150_000, 151_000));
            }
            try (FSDataInputStream in = fs.openFile(path).build().get()) {
                assertThat(in.getWrappedStream()).isInstanceOf(S3AInputStream.class);
                byte[] all = new byte[written.length];
                in.readFully(0, all);
                assertThat(all).isEqualTo(written);
            }
        }
    }
}
