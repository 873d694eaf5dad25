package io.rangefetch.it;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream.FileRange;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * One reader thread of the fault soak. It opens a stream on a random object (knowing nothing, the length, or the
 * length and an ETag), reads it a few times in random ways ({@link ReadKind}: positioned, streaming from a seek or
 * on from where the last read stopped, vectored with one to four ranges, tail), closes it, and starts over until
 * told to stop.
 *
 * <p>Every read is checked, and counted by its outcome in the {@link SoakTally}:
 * <ul>
 *   <li>bytes: each must be the object's, of one version, the same version for everything one stream returns;
 *       a short streaming read only at the end of the object;
 *   <li>a version change ({@link EntryPoint#isVersionChange}): only on an object that was overwritten, by a stream that has a version
 *       newer than the one it returned bytes of (or, before it returned any, any newer one at all: within
 *       {@code metadata.ttl} a new stream may start on a version the factory learned before);
 *   <li>another {@link IOException}: a fault can outlast the retries; its message must name bucket and key. Never
 *       an {@link EOFException} or {@link FileNotFoundException}: every read is in bounds of an object that
 *       exists.
 * </ul>
 * Anything else (wrong or mixed bytes, an unchecked exception, an exception not excused) is a failure. After an
 * exception the stream is closed and the reader moves on.
 */
final class SoakReader implements Runnable {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final ReadKind[] KINDS = ReadKind.values();

    private final EntryPoint entryPoint;
    private final List<SoakObject> objects;
    private final SplittableRandom random;
    private final SoakTally tally;
    private final BooleanSupplier more;
    private final Runnable afterRead;

    /**
     * @param more whether to start another read
     * @param afterRead runs after every read, whatever its outcome (the soak overwrites an object from there)
     */
    SoakReader(
            EntryPoint entryPoint,
            List<SoakObject> objects,
            SplittableRandom random,
            SoakTally tally,
            BooleanSupplier more,
            Runnable afterRead) {
        this.entryPoint = requireNonNull(entryPoint, "entryPoint is null");
        this.objects = List.copyOf(objects);
        this.random = requireNonNull(random, "random is null");
        this.tally = requireNonNull(tally, "tally is null");
        this.more = requireNonNull(more, "more is null");
        this.afterRead = requireNonNull(afterRead, "afterRead is null");
    }

    @Override
    public void run() {
        while (more.getAsBoolean()) {
            readSome(objects.get(random.nextInt(objects.size())));
        }
    }

    private void readSome(SoakObject object) {
        OpenedStream opened;
        try {
            opened = open(object);
        } catch (IOException | RuntimeException e) {
            // the proxy fails GETs only; opening sends at most a HEAD (S3A's, for a stream that knows nothing)
            tally.fail("opening " + object + " through " + entryPoint + " threw " + e);
            return;
        }
        try (EntryStream stream = opened.stream) {
            tally.streamOpened();
            int reads = 1 + random.nextInt(6);
            for (int read = 0; read < reads && more.getAsBoolean(); read++) {
                if (read == 0) {
                    tally.firstRead();
                }
                if (!readOnce(object, opened)) {
                    return;
                }
            }
        } catch (IOException e) {
            tally.fail("closing a stream on " + object + " through " + entryPoint + " threw " + e);
        }
    }

    /**
     * Opens knowing nothing, the length, or the length and the newest written version's ETag (where the entry
     * point passes one on).
     */
    private OpenedStream open(SoakObject object) throws IOException {
        int known = random.nextInt(3);
        if (known == 0) {
            return new OpenedStream(entryPoint.open(object.location(), -1, null), null);
        }
        if (known == 1 || !entryPoint.passesEtag()) {
            return new OpenedStream(entryPoint.open(object.location(), object.size(), null), null);
        }
        int version = object.newestWritten();
        BitSet versions = new BitSet();
        versions.set(version);
        return new OpenedStream(entryPoint.open(object.location(), object.size(), object.etag(version)), versions);
    }

    /** One read, checked and counted; false if it threw, and the stream should be given up. */
    private boolean readOnce(SoakObject object, OpenedStream opened) {
        ReadKind kind = KINDS[random.nextInt(KINDS.length)];
        if (kind == ReadKind.VECTORED && object.size() == 0 && !entryPoint.readsAnEmptyRangeAtTheEnd()) {
            kind = ReadKind.POSITIONED;
        }
        List<Chunk> chunks = new ArrayList<>();
        try {
            read(kind, object, opened.stream, chunks);
            check(kind, object, opened, chunks);
            tally.read(kind, SoakTally.OK);
            return true;
        } catch (EOFException | FileNotFoundException e) {
            tally.read(kind, e.getClass().getSimpleName());
            tally.fail(kind + " read " + chunks + " of " + object + " is in bounds of an object that exists: " + e);
            return false;
        } catch (IOException e) {
            tally.read(kind, e.getClass().getSimpleName());
            if (entryPoint.isVersionChange(e)) {
                if (!changeExcused(object, opened, e)) {
                    tally.fail(kind + " read of " + object + " threw although no newer version exists than the "
                            + "stream's " + opened.versions + ": " + e);
                }
            } else {
                excuseOrFail(kind, object, e);
            }
            return false;
        } catch (RuntimeException | AssertionError e) {
            tally.read(kind, e.getClass().getSimpleName());
            tally.fail(kind + " read " + chunks + " of " + object + " threw " + e);
            return false;
        } finally {
            tally.sampleCache(entryPoint.cacheMemoryBytes());
            afterRead.run();
        }
    }

    /** Reads as {@code kind} says, at random places; adds what came back to {@code chunks}. */
    private void read(ReadKind kind, SoakObject object, EntryStream stream, List<Chunk> chunks) throws IOException {
        int size = object.size();
        if (kind == ReadKind.VECTORED) {
            List<FileRange> ranges = ranges(size);
            tally.vectoredRanges(ranges.size());
            List<byte[]> results = ReadKind.readVectored(stream, ranges);
            for (int i = 0; i < ranges.size(); i++) {
                chunks.add(new Chunk(ranges.get(i).offset(), ranges.get(i).length(), results.get(i)));
            }
            return;
        }
        int length = length(size);
        long position = switch (kind) {
            case POSITIONED -> random.nextInt(size - length + 1);
            // half the time on from where the last read stopped, so that a stream turns sequential and prefetches
            case STREAMING -> random.nextBoolean() ? stream.getPos() : random.nextInt(size + 1);
            case TAIL -> size - length;
            case VECTORED -> throw new AssertionError("read above");
        };
        chunks.add(new Chunk(position, length, kind.read(stream, position, length)));
    }

    /** One to four ranges, one in each of as many even slices of the object, so they never overlap. */
    private List<FileRange> ranges(int size) {
        int count = Math.min(1 + random.nextInt(4), Math.max(size, 1));
        int slice = size / count;
        List<FileRange> ranges = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = length(slice);
            ranges.add(FileRange.of((long) i * slice + random.nextInt(slice - length + 1), length));
        }
        return ranges;
    }

    /** Mostly up to 64 KiB, sometimes up to 1 MiB, now and then up to 10 MiB: at most {@code size}, 0 if it is. */
    private int length(int size) {
        int most = switch (random.nextInt(10)) {
            case 0 -> 10 * MIB;
            case 1, 2 -> MIB;
            default -> 64 * KIB;
        };
        return size == 0 ? 0 : 1 + random.nextInt(Math.min(most, size));
    }

    /**
     * Each chunk must be the object's bytes at its position, as many as were asked for up to the object's end,
     * and of a version every earlier chunk of the stream also matched.
     */
    private void check(ReadKind kind, SoakObject object, OpenedStream opened, List<Chunk> chunks) {
        long bytes = 0;
        for (Chunk chunk : chunks) {
            long expected = Math.min(chunk.asked, object.size() - chunk.position);
            if (chunk.bytes.length != expected) {
                tally.fail(kind + " read " + chunk + " of " + object + ": " + expected + " bytes expected");
                return;
            }
            BitSet matching = object.matching(opened.versions, chunk.position, chunk.bytes);
            if (matching.isEmpty()) {
                tally.fail(kind + " read " + chunk + " of " + object + ": wrong bytes, of no version the stream "
                        + "may return (" + (opened.versions == null ? "any" : opened.versions) + "); of versions "
                        + object.matching(null, chunk.position, chunk.bytes) + " alone");
                return;
            }
            opened.versions = matching;
            bytes += chunk.bytes.length;
        }
        tally.verified(bytes);
    }

    /** A fault can outlast the retries: excused if the exception names the object. */
    private void excuseOrFail(ReadKind kind, SoakObject object, IOException e) {
        if (!namesObject(object, e)) {
            tally.fail(kind + " read of " + object + " threw without naming the object: " + e);
        } else {
            tally.excused(kind + ": " + e + (e.getCause() == null ? "" : " <- " + e.getCause()));
        }
    }

    private static boolean namesObject(SoakObject object, IOException e) {
        String message = String.valueOf(e.getMessage());
        return message.contains(object.location().bucket())
                && message.contains(object.location().key());
    }

    private static boolean changeExcused(SoakObject object, OpenedStream opened, IOException e) {
        if (!namesObject(object, e)) {
            return false;
        }
        int oldest = opened.versions == null ? 0 : opened.versions.nextSetBit(0);
        return object.versions() - 1 > oldest;
    }

    /** A stream, and the versions its bytes so far match (null while it has returned none). */
    private static final class OpenedStream {
        private final EntryStream stream;
        private BitSet versions;

        private OpenedStream(EntryStream stream, BitSet versions) {
            this.stream = stream;
            this.versions = versions;
        }
    }

    /** What one read (or one vectored range) asked for and got. */
    private record Chunk(long position, int asked, byte[] bytes) {
        @Override
        public String toString() {
            return asked + " bytes at " + position + " (got " + bytes.length + ")";
        }
    }
}
