package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link RangefetchS3AFileSystem} chosen with {@code fs.s3a.impl}, on MinIO through the proxy: its streams are
 * Rangefetch's, opened with the length and ETag S3A knows (no HEAD when the caller passed a status or a length), a
 * changed object fails the read with S3A's exception, their statistics reach the file system's, and everything but
 * reading is S3A's.
 */
@ExtendWith(ProxiedS3A.OnMinio.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RangefetchS3AFileSystemMinioIT {
    private static final int KIB = 1024;

    private ProxiedS3A s3a;
    private S3Client s3;

    @BeforeAll
    void setUp() {
        s3a = ProxiedS3A.of(getClass());
        s3 = S3Clients.sync(s3a.server());
    }

    @AfterAll
    void tearDown() {
        if (s3 != null) {
            s3.close();
        }
    }

    private FileSystem fileSystem() throws IOException {
        return FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), rangefetchConfiguration());
    }

    private Configuration rangefetchConfiguration() {
        Configuration conf = ProxiedS3A.withRangefetchFileSystem(s3a.s3aConfiguration());
        // this test counts the requests its reads plan; a hedge would add a second send of a slow GET by design
        conf.set("fs.s3a.rangefetch.hedge.enabled", "false");
        return conf;
    }

    private byte[] put(String key, int size, long seed) {
        byte[] bytes = new byte[size];
        new SplittableRandom(seed).nextBytes(bytes);
        s3.putObject(request -> request.bucket(ProxiedS3A.BUCKET).key(key), RequestBody.fromBytes(bytes));
        return bytes;
    }

    private ProxyLedger ledger() {
        return s3a.proxy().ledger();
    }

    @Test
    void openReturnsARangefetchStreamThatReadsTheObject() throws Exception {
        byte[] object = put("fs/plain.bin", 3 * 1024 * KIB, 1);
        try (FileSystem fs = fileSystem()) {
            assertThat(fs).isInstanceOf(RangefetchS3AFileSystem.class);
            ledger().reset();
            try (FSDataInputStream in = fs.open(new Path("/fs/plain.bin"))) {
                assertThat(in.getWrappedStream()).isInstanceOf(RangefetchFSInputStream.class);
                // vectored reads where Hadoop has them (3.3.5 and later)
                assertThat(in.hasCapability("in:readvectored")).isEqualTo(hasClass("org.apache.hadoop.fs.FileRange"));
                assertThat(in.hasCapability(StreamCapabilities.UNBUFFER)).isTrue();
                byte[] middle = new byte[100_000];
                in.readFully(1_000_000, middle);
                assertThat(middle).isEqualTo(Arrays.copyOfRange(object, 1_000_000, 1_100_000));
                byte[] first = new byte[10_000];
                in.readFully(first);
                assertThat(first).isEqualTo(Arrays.copyOfRange(object, 0, 10_000));
            }
            // S3A's open learns the length with its one HEAD, as S3A's own streams do; Rangefetch sends none
            assertThat(ledger().heads()).isEqualTo(1);
            assertThat(ledger().gets()).isPositive();
        }
    }

    @Test
    void parquetJavaReadsAProjectionThroughTheFileSystemAsThroughS3AsOwnStreamsInFewerGets(
            @TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path local = ParquetRows.write(dir.resolve("rows.parquet"));
        s3.putObject(request -> request.bucket(ProxiedS3A.BUCKET).key("fs/rows.parquet"), RequestBody.fromFile(local));
        List<String> expected = ParquetRows.readProjected(new LocalInputFile(local), new Configuration());
        assertThat(expected).hasSize(ParquetRows.ROWS);

        Configuration classic = s3a.s3aConfiguration();
        classic.set("fs.s3a.input.stream.type", "classic"); // the default of the lines this file system is for
        long classicGets = readParquet(classic, expected, S3AFileSystem.class);
        long rangefetchGets = readParquet(rangefetchConfiguration(), expected, RangefetchS3AFileSystem.class);
        System.out.printf(
                "projection through fs.s3a.impl: S3A %d GETs, Rangefetch %d GETs%n", classicGets, rangefetchGets);
        if (hasClass("org.apache.hadoop.fs.FileRange")) {
            // parquet-java reads the projection's chunks with a vectored read, which Rangefetch coalesces
            assertThat(rangefetchGets).isLessThan(classicGets);
        } else {
            // Hadoop 3.3.4: no vectored reads, so each chunk is a positioned read, one GET on either stream
            assertThat(rangefetchGets).isLessThanOrEqualTo(classicGets);
        }
    }

    /** Reads the projection with vectored IO on, through {@code conf}'s file system; answers the GETs it took. */
    private long readParquet(Configuration conf, List<String> expected, Class<?> fileSystemType) throws IOException {
        conf.setBoolean("parquet.hadoop.vectored.io.enabled", true);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf)) {
            assertThat(fs.getClass()).isEqualTo(fileSystemType);
            FileStatus status = fs.getFileStatus(new Path("/fs/rows.parquet"));
            ledger().reset();
            assertThat(ParquetRows.readProjected(HadoopInputFile.fromStatus(status, conf), conf))
                    .isEqualTo(expected);
            return ledger().gets();
        }
    }

    @Test
    void openFileWithAStatusSendsNoHead() throws Exception {
        byte[] object = put("fs/known.bin", 512 * KIB, 2);
        try (FileSystem fs = fileSystem()) {
            Path path = new Path("/fs/known.bin");
            FileStatus status = fs.getFileStatus(path);
            ledger().reset();
            try (FSDataInputStream in =
                    fs.openFile(path).withFileStatus(status).build().get()) {
                byte[] all = new byte[object.length];
                in.readFully(0, all);
                assertThat(all).isEqualTo(object);
            }
            assertThat(ledger().heads()).isZero();
        }
    }

    @Test
    void openFileWithALengthSendsNoHead() throws Exception {
        // fs.option.openfile.length is Hadoop 3.3.5's; 3.3.4's S3A has no such option, and neither has its subclass
        assumeTrue(hasOpenFileLengthOption(), "this Hadoop has no fs.option.openfile.length (3.3.4 and older)");
        byte[] object = put("fs/known-length.bin", 512 * KIB, 2);
        try (FileSystem fs = fileSystem()) {
            Path path = new Path("/fs/known-length.bin");
            ledger().reset();
            try (FSDataInputStream in = fs.openFile(path)
                    .opt("fs.option.openfile.length", object.length)
                    .build()
                    .get()) {
                byte[] tail = new byte[1000];
                in.readFully(object.length - 1000, tail);
                assertThat(tail).isEqualTo(Arrays.copyOfRange(object, object.length - 1000, object.length));
            }
            assertThat(ledger().heads()).isZero();
        }
    }

    private static boolean hasOpenFileLengthOption() {
        try {
            Class.forName("org.apache.hadoop.fs.Options$OpenFileOptions").getField("FS_OPTION_OPENFILE_LENGTH");
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    private static boolean hasClass(String name) {
        try {
            Class.forName(name);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Test
    void anObjectOverwrittenAfterItsStatusFailsTheReadWithS3asChangeExceptionAndNeverMixedBytes() throws Exception {
        byte[] original = put("fs/changing.bin", 16 * 1024 * KIB, 3);
        try (FileSystem fs = fileSystem()) {
            Path path = new Path("/fs/changing.bin");
            FileStatus status = fs.getFileStatus(path);
            try (FSDataInputStream in =
                    fs.openFile(path).withFileStatus(status).build().get()) {
                byte[] head = new byte[1000];
                in.readFully(0, head);
                assertThat(head).isEqualTo(Arrays.copyOfRange(original, 0, 1000));
                put("fs/changing.bin", original.length, 4);
                // a range not fetched yet: its GET names the first version's ETag, which the object no longer has
                byte[] tail = new byte[1000];
                assertThatThrownBy(() -> in.readFully(original.length - 1000, tail))
                        .isInstanceOf(RemoteFileChangedException.class)
                        .hasMessageContaining("changing.bin");
                assertThat(tail).as("no byte of the new version was handed out").containsOnly((byte) 0);
            }
        }
    }

    @Test
    void aClosedStreamsCountsReachTheFileSystemsStatistics() throws Exception {
        put("fs/counted.bin", 300 * KIB, 5);
        try (FileSystem fs = fileSystem()) {
            FSDataInputStream in = fs.open(new Path("/fs/counted.bin"));
            in.readFully(0, new byte[200_000]);
            in.unbuffer();
            in.readFully(200_000, new byte[1000]);
            in.close();
            in.close();
            assertThatThrownBy(() -> in.readFully(0, new byte[1])).isInstanceOf(IOException.class);
            assertThat(((IOStatisticsSource) fs).getIOStatistics().counters().get("stream_read_bytes"))
                    .isEqualTo(201_000L);
        }
    }

    @Test
    void writingListingAndDeletingStayS3As() throws Exception {
        try (FileSystem fs = fileSystem()) {
            Path path = new Path("/fs/written/file.txt");
            try (FSDataOutputStream out = fs.create(path, true)) {
                out.write("written through S3A".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            assertThat(fs.listStatus(new Path("/fs/written")))
                    .extracting(found -> found.getPath().getName())
                    .containsExactly("file.txt");
            try (FSDataInputStream in = fs.open(path)) {
                assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
                        .isEqualTo("written through S3A");
            }
            assertThat(fs.delete(path, false)).isTrue();
            assertThat(fs.exists(path)).isFalse();
        }
    }

    @Test
    void aDirectoryOrAMissingFileCannotBeOpenedAndAClosedFileSystemOpensNothing() throws Exception {
        put("fs/dir/inside.bin", 10, 6);
        FileSystem fs = fileSystem();
        try {
            assertThatThrownBy(() -> fs.open(new Path("/fs/dir"))).isInstanceOf(java.io.FileNotFoundException.class);
            assertThatThrownBy(() -> fs.open(new Path("/fs/missing.bin")))
                    .isInstanceOf(java.io.FileNotFoundException.class);
        } finally {
            fs.close();
        }
        assertThatThrownBy(() -> fs.open(new Path("/fs/dir/inside.bin"))).isInstanceOf(IOException.class);
    }

    @Test
    void aBadRangefetchSettingFailsTheFileSystemNamingTheKey() {
        Configuration conf = ProxiedS3A.withRangefetchFileSystem(s3a.s3aConfiguration());
        conf.set("fs.s3a.rangefetch.cache.max-memory", "plenty");
        assertThatThrownBy(() -> FileSystem.newInstance(URI.create("s3a://" + ProxiedS3A.BUCKET + "/"), conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.s3a.rangefetch.cache.max-memory")
                .hasMessageContaining("plenty");
    }
}
