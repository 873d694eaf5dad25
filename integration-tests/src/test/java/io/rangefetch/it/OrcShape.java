package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DoubleColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcConf;
import org.apache.orc.OrcFile;
import org.apache.orc.OrcProto;
import org.apache.orc.Reader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;

/**
 * An ORC file for a test to write with Apache ORC's own writer: an id, a double and {@code stringColumns} string
 * columns of random letters (so ZLIB hardly shrinks them, and each stripe's statistics of each column carry a
 * distinct minimum and maximum), cut into stripes of about {@code stripeSize} bytes. What a test expects of the
 * file's layout comes from ORC's reader of the local copy ({@link #layout}), never from Rangefetch's parser.
 *
 * @param name the file name, locally and in the bucket
 * @param stringColumns how many string columns follow the id and the double
 * @param rows how many rows the file holds
 * @param stripeSize the writer's stripe size: a stripe is cut once its buffered columns are about this large
 */
record OrcShape(String name, int stringColumns, int rows, long stripeSize) {
    private static final int STRING_LENGTH = 24;
    private static final int BATCH_ROWS = 128;
    private static final byte[] LETTERS =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);

    OrcShape {
        requireNonNull(name, "name is null");
    }

    /** Where an ORC file's sections lie, as ORC's reader reads them. */
    record Layout(long fileLength, long tailLength, List<StripeInformation> stripes) {
        /** Where the tail (metadata, footer, postscript and its length byte) starts. */
        long tailStart() {
            return fileLength - tailLength;
        }
    }

    TypeDescription schema() {
        TypeDescription schema = TypeDescription.createStruct()
                .addField("id", TypeDescription.createLong())
                .addField("score", TypeDescription.createDouble());
        for (int column = 0; column < stringColumns; column++) {
            schema.addField("text" + column, TypeDescription.createString());
        }
        return schema;
    }

    /** Writes the file into {@code directory}; returns its path. */
    Path write(Path directory) throws IOException {
        Path path = directory.resolve(name);
        TypeDescription schema = schema();
        Configuration conf = configuration();
        // a memory check after every batch, so stripes are cut near stripeSize even when it is small
        OrcConf.ROWS_BETWEEN_CHECKS.setLong(conf, BATCH_ROWS);
        SplittableRandom random = new SplittableRandom(name.hashCode());
        try (Writer writer = OrcFile.createWriter(
                hadoopPath(path),
                OrcFile.writerOptions(conf)
                        .setSchema(schema)
                        .compress(CompressionKind.ZLIB)
                        .stripeSize(stripeSize)
                        .overwrite(true))) {
            VectorizedRowBatch batch = schema.createRowBatch(BATCH_ROWS);
            for (int row = 0; row < rows; row++) {
                int slot = batch.size++;
                ((LongColumnVector) batch.cols[0]).vector[slot] = row;
                ((DoubleColumnVector) batch.cols[1]).vector[slot] = random.nextDouble();
                for (int column = 0; column < stringColumns; column++) {
                    byte[] text = new byte[STRING_LENGTH];
                    for (int i = 0; i < text.length; i++) {
                        text[i] = LETTERS[random.nextInt(LETTERS.length)];
                    }
                    ((BytesColumnVector) batch.cols[2 + column]).setVal(slot, text);
                }
                if (batch.size == batch.getMaxSize()) {
                    writer.addRowBatch(batch);
                    batch.reset();
                }
            }
            if (batch.size > 0) {
                writer.addRowBatch(batch);
            }
        }
        return path;
    }

    /** The layout ORC's reader finds in the local file at {@code path}. */
    static Layout layout(Path path) throws IOException {
        try (Reader reader = OrcFile.createReader(hadoopPath(path), OrcFile.readerOptions(configuration()))) {
            OrcProto.FileTail tail = reader.getFileTail();
            OrcProto.PostScript postScript = tail.getPostscript();
            long tailLength =
                    1 + tail.getPostscriptLength() + postScript.getFooterLength() + postScript.getMetadataLength();
            return new Layout(tail.getFileLength(), tailLength, List.copyOf(reader.getStripes()));
        }
    }

    /** No site files: the same settings on every machine. */
    private static Configuration configuration() {
        return new Configuration(false);
    }

    private static org.apache.hadoop.fs.Path hadoopPath(Path path) {
        return new org.apache.hadoop.fs.Path(path.toUri());
    }
}
