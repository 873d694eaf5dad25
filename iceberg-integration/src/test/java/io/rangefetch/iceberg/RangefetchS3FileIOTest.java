package io.rangefetch.iceberg;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Map;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.objenesis.strategy.StdInstantiatorStrategy;

/** What needs no S3 server: settings, location parsing, the switch, serialization and close semantics. */
class RangefetchS3FileIOTest {

    /** A FileIO whose shared factory closes with its last copy (no linger), so close semantics show at once. */
    private static RangefetchS3FileIO initialized(Map<String, String> properties) {
        RangefetchS3FileIO io = new RangefetchS3FileIO(LocalS3Client.unreachable());
        Map<String, String> withoutLinger = new java.util.HashMap<>(properties);
        withoutLinger.putIfAbsent("rangefetch.factory.linger", "0s");
        io.initialize(withoutLinger);
        return io;
    }

    @Test
    void rangefetchPropertiesBecomeTheStreamConfig() {
        try (RangefetchS3FileIO io = initialized(Map.of(
                "rangefetch.read.min-request-size", "128KiB",
                "rangefetch.cache.max-memory", "64MB",
                "s3.path-style-access", "true"))) {
            StreamConfig config = io.streamConfig();
            assertThat(config.get(MIN_REQUEST_SIZE)).isEqualTo(128 * 1024);
            assertThat(config.get(CACHE_MAX_MEMORY)).isEqualTo(64L * 1024 * 1024);
            assertThat(io.rangefetchEnabled()).isTrue();
        }
    }

    @Test
    void noRangefetchPropertiesGiveTheDefaults() {
        try (RangefetchS3FileIO io = initialized(Map.of())) {
            StreamConfig defaults = StreamConfig.builder().build();
            assertThat(io.streamConfig().get(MIN_REQUEST_SIZE)).isEqualTo(defaults.get(MIN_REQUEST_SIZE));
            assertThat(io.streamConfig().get(CACHE_MAX_MEMORY)).isEqualTo(defaults.get(CACHE_MAX_MEMORY));
            assertThat(io.rangefetchEnabled()).isTrue();
        }
    }

    @Test
    void aBadValueFailsAtInitializeNamingTheProperty() {
        RangefetchS3FileIO io = new RangefetchS3FileIO(LocalS3Client.unreachable());
        assertThatThrownBy(() -> io.initialize(Map.of("rangefetch.read.min-request-size", "lots")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.read.min-request-size")
                .hasMessageContaining("lots");
        io.close();
    }

    @Test
    void anUnknownKeyFailsAtInitializeNamingIt() {
        RangefetchS3FileIO io = new RangefetchS3FileIO(LocalS3Client.unreachable());
        assertThatThrownBy(() -> io.initialize(Map.of("rangefetch.read.min-request-sise", "1MB")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.read.min-request-sise");
        io.close();
    }

    @Test
    void aBadEnabledValueFailsAtInitialize() {
        RangefetchS3FileIO io = new RangefetchS3FileIO(LocalS3Client.unreachable());
        assertThatThrownBy(() -> io.initialize(Map.of(RangefetchS3FileIO.ENABLED, "yes")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rangefetch.enabled=yes");
        io.close();
    }

    @Test
    void disabledGivesIcebergsOwnInputFiles() {
        try (RangefetchS3FileIO io = initialized(Map.of(RangefetchS3FileIO.ENABLED, "false"))) {
            assertThat(io.rangefetchEnabled()).isFalse();
            InputFile withoutLength = io.newInputFile("s3://bucket/data/a.parquet");
            InputFile withLength = io.newInputFile("s3://bucket/data/a.parquet", 10);
            assertThat(withoutLength.getClass().getName()).isEqualTo("org.apache.iceberg.aws.s3.S3InputFile");
            assertThat(withLength.getClass().getName()).isEqualTo("org.apache.iceberg.aws.s3.S3InputFile");
            assertThat(io.factoryCount()).isZero();
        }
    }

    @Test
    void enabledGivesRangefetchInputFilesAndOneFactoryPerClient() {
        try (RangefetchS3FileIO io = initialized(Map.of())) {
            InputFile file = io.newInputFile("s3://bucket/data/a.parquet", 10);
            InputFile other = io.newInputFile("s3a://bucket/metadata/snap-1.avro");
            assertThat(file).isInstanceOf(RangefetchInputFile.class);
            assertThat(other).isInstanceOf(RangefetchInputFile.class);
            assertThat(file.location()).isEqualTo("s3://bucket/data/a.parquet");
            // a known length is answered without a request (the endpoint is unreachable)
            assertThat(file.getLength()).isEqualTo(10);
            assertThat(io.factoryCount()).isOne();
        }
    }

    @Test
    void parsesTheSchemesS3FileIOAccepts() {
        assertThat(RangefetchS3FileIO.parseLocation("s3://bucket/a/b.parquet"))
                .isEqualTo(new S3Location("bucket", "a/b.parquet"));
        assertThat(RangefetchS3FileIO.parseLocation("s3a://bucket/a")).isEqualTo(new S3Location("bucket", "a"));
        assertThat(RangefetchS3FileIO.parseLocation("s3n://bucket/a/")).isEqualTo(new S3Location("bucket", "a/"));
    }

    @Test
    void rejectsABadLocationNamingIt() {
        for (String bad : new String[] {
            "gs://bucket/a", "s3://bucket", "s3://bucket/", "s3:///key", "/tmp/a", "s3://bucket/a?versionId=1"
        }) {
            assertThatThrownBy(() -> RangefetchS3FileIO.parseLocation(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad);
        }
        try (RangefetchS3FileIO io = initialized(Map.of())) {
            assertThatThrownBy(() -> io.newInputFile("gs://bucket/a"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("gs://bucket/a");
            assertThatThrownBy(() -> io.newInputFile("s3://bucket/a", -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("s3://bucket/a");
        }
    }

    @Test
    void useAfterCloseFailsClearly() throws IOException {
        RangefetchS3FileIO io = initialized(Map.of());
        InputFile file = io.newInputFile("s3://bucket/a", 4);
        SeekableInputStream stream = file.newStream();
        io.close();
        io.close(); // idempotent
        assertThat(io.factoryCount()).isZero();
        assertThatThrownBy(() -> io.newInputFile("s3://bucket/b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed")
                .hasMessageContaining("s3://bucket/b");
        // a stream opened before close fails its next read that needs a request, saying why
        assertThatThrownBy(() -> stream.read()).isInstanceOf(IOException.class).hasMessageContaining("closed");
        stream.close();
    }

    @Test
    void javaSerializationKeepsSettingsAndRebuildsFactories() throws Exception {
        try (RangefetchS3FileIO io = initialized(Map.of("rangefetch.read.min-request-size", "256KiB"))) {
            io.newInputFile("s3://bucket/a", 1);
            assertThat(io.factoryCount()).isOne();
            try (RangefetchS3FileIO copy = javaRoundTrip(io)) {
                assertRebuilt(copy, io);
            }
        }
        try (RangefetchS3FileIO io = initialized(Map.of(RangefetchS3FileIO.ENABLED, "false"));
                RangefetchS3FileIO copy = javaRoundTrip(io)) {
            assertThat(copy.rangefetchEnabled()).isFalse();
            assertThat(copy.newInputFile("s3://bucket/a").getClass().getName())
                    .isEqualTo("org.apache.iceberg.aws.s3.S3InputFile");
        }
    }

    @Test
    void kryoSerializationKeepsSettingsAndRebuildsFactories() {
        try (RangefetchS3FileIO io = initialized(Map.of("rangefetch.read.min-request-size", "256KiB"))) {
            io.newInputFile("s3://bucket/a", 1);
            try (RangefetchS3FileIO copy = kryoRoundTrip(io)) {
                assertRebuilt(copy, io);
            }
        }
    }

    @Test
    void aClosedFileIOSerializesToAnOpenOne() throws Exception {
        RangefetchS3FileIO io = initialized(Map.of());
        io.close();
        try (RangefetchS3FileIO copy = javaRoundTrip(io)) {
            assertThat(copy.newInputFile("s3://bucket/a", 1)).isInstanceOf(RangefetchInputFile.class);
        }
    }

    private static void assertRebuilt(RangefetchS3FileIO copy, RangefetchS3FileIO original) {
        assertThat(copy.factoryCount()).isZero();
        assertThat(copy.streamConfig().get(MIN_REQUEST_SIZE)).isEqualTo(256 * 1024);
        assertThat(copy.rangefetchEnabled()).isTrue();
        assertThat(copy.properties()).isEqualTo(original.properties());
        assertThat(copy.newInputFile("s3://bucket/a", 1)).isInstanceOf(RangefetchInputFile.class);
        assertThat(copy.factoryCount()).isOne();
    }

    private static RangefetchS3FileIO javaRoundTrip(RangefetchS3FileIO io) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(io);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (RangefetchS3FileIO) in.readObject();
        }
    }

    /** As Iceberg's own Kryo tests configure it: no registration, Java's instantiation without constructors. */
    private static RangefetchS3FileIO kryoRoundTrip(RangefetchS3FileIO io) {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Output out = new Output(bytes)) {
            kryo.writeClassAndObject(out, io);
        }
        try (Input in = new Input(bytes.toByteArray())) {
            return (RangefetchS3FileIO) kryo.readClassAndObject(in);
        }
    }
}
