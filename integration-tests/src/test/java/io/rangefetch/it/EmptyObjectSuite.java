package io.rangefetch.it;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import io.rangefetch.parquet.S3ParquetInputFile;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Empty objects of every format from a real S3 server, subclassed once per backend: with the length unknown (the
 * first request's 416, or an empty answer, says the object is empty, and no HEAD follows) and known (nothing is
 * sent at all), every read ends at once, and nothing waits for a fetch slot it holds itself, even with one slot.
 */
@Timeout(value = 120, threadMode = ThreadMode.SEPARATE_THREAD)
abstract class EmptyObjectSuite extends ProxiedS3ServerTestBase {
    /** Parquet (rangefetch-parquet is on the class path), ORC and text policies, and no policy. */
    private static final List<String> KEYS =
            List.of("empty.parquet", "empty.orc", "empty.csv", "empty.json", "empty.bin");

    private static final StreamConfig ONE_SLOT = StreamConfig.builder()
            .set(FETCH_MAX_CONCURRENCY, 1)
            .set(CACHE_MAX_MEMORY, 64L << 20)
            .build();

    EmptyObjectSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void uploadEmptyObjects() {
        try (S3Client s3 = S3Clients.sync(server())) {
            for (String key : KEYS) {
                put(s3, key, new byte[0]);
            }
            for (int i = 0; i < 8; i++) {
                put(s3, "empty-" + i + ".orc", new byte[0]);
            }
        }
    }

    private S3Location location(String name) {
        return new S3Location(bucket(), key(name));
    }

    private static void assertEmpty(SeekableS3InputStream stream) throws Exception {
        assertThat(stream.read()).isEqualTo(-1);
        assertThat(stream.read(new byte[100], 0, 100)).isEqualTo(-1);
        assertThat(stream.readTail(new byte[8], 0, 8)).isZero();
        assertThat(stream.length()).isZero();
        FileRange nothing = FileRange.of(0, 0);
        stream.readVectored(List.of(nothing), ByteBuffer::allocate);
        assertThat(nothing.data().get(30, TimeUnit.SECONDS).remaining()).isZero();
        assertThatThrownBy(() -> stream.readFully(0, new byte[1], 0, 1)).isInstanceOf(java.io.EOFException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"empty.parquet", "empty.orc", "empty.csv", "empty.json", "empty.bin"})
    void anEmptyObjectOfUnknownLengthReadsAsEmptyWithOneFetchSlotAndNoHead(String name) throws Exception {
        withFactory(ONE_SLOT, factory -> {
            Optional<ProxyLedger> ledger = countingLedgerIfProxied();
            try (SeekableS3InputStream stream = factory.open(location(name))) {
                assertEmpty(stream);
            }
            ledger.ifPresent(counted -> {
                assertThat(counted.heads()).as("HEADs").isZero();
                assertThat(counted.gets())
                        .as("GETs: the one that found the object empty")
                        .isEqualTo(1);
            });
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"empty.parquet", "empty.orc", "empty.csv", "empty.json", "empty.bin"})
    void anEmptyObjectOfKnownLengthSendsNothing(String name) throws Exception {
        withFactory(ONE_SLOT, factory -> {
            Optional<ProxyLedger> ledger = countingLedgerIfProxied();
            try (SeekableS3InputStream stream =
                    factory.open(location(name), OpenOptions.builder().length(0).build())) {
                assertEmpty(stream);
            }
            ledger.ifPresent(
                    counted -> assertThat(counted.requests()).as("requests").isEmpty());
        });
    }

    @Test
    void emptyObjectsOpenedAtOnceAllReadAsEmpty() throws Exception {
        withFactory(
                StreamConfig.builder()
                        .set(FETCH_MAX_CONCURRENCY, 8)
                        .set(CACHE_MAX_MEMORY, 64L << 20)
                        .build(),
                factory -> {
                    ExecutorService readers = Executors.newFixedThreadPool(8);
                    try {
                        List<Future<Integer>> reads = new ArrayList<>();
                        for (int i = 0; i < 8; i++) {
                            S3Location location = location("empty-" + i + ".orc");
                            reads.add(readers.submit(() -> {
                                try (SeekableS3InputStream stream = factory.open(location)) {
                                    return stream.read();
                                }
                            }));
                        }
                        for (Future<Integer> read : reads) {
                            assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(-1);
                        }
                    } finally {
                        readers.shutdownNow();
                        assertThat(readers.awaitTermination(30, TimeUnit.SECONDS))
                                .isTrue();
                    }
                });
    }

    @Test
    void parquetJavaToldAnEmptyFileIsNotParquetGetsItsOwnErrorAtOnce() throws Exception {
        withFactory(ONE_SLOT, factory -> {
            S3ParquetInputFile input = new S3ParquetInputFile(factory, location("empty.parquet"));
            assertThat(input.getLength()).isZero();
            assertThatThrownBy(() -> ParquetFileReader.open(
                                    input,
                                    ParquetReadOptions.builder(new PlainParquetConfiguration())
                                            .build())
                            .close())
                    .hasMessageContaining("not a Parquet file");
        });
    }
}
