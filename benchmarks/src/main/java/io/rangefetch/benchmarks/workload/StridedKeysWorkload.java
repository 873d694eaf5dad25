package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.TextSpec;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.workload.OrcPatternWorkload.Mode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The ORC pattern's positioned reads at one stride, on objects whose keys name a format they are not (Parquet, ORC)
 * or none: a pattern no format policy recognizes, whatever the key. What a reader fetches past the bytes read is
 * what its predictions (a stride, a footer on open, a whole-object rule) wasted.
 */
public final class StridedKeysWorkload implements Workload {
    private final List<OrcPatternWorkload> patterns;
    private final List<StoredObject> objects;

    /** @param specs and {@code objects}: the same objects, in the same order */
    public StridedKeysWorkload(List<TextSpec> specs, List<StoredObject> objects) {
        requireNonNull(specs, "specs is null");
        this.objects = List.copyOf(requireNonNull(objects, "objects is null"));
        if (specs.isEmpty() || specs.size() != objects.size()) {
            throw new IllegalArgumentException(specs.size() + " specs for " + objects.size() + " objects");
        }
        List<OrcPatternWorkload> each = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            each.add(new OrcPatternWorkload(specs.get(i), objects.get(i), Mode.POSITIONED));
        }
        this.patterns = List.copyOf(each);
    }

    @Override
    public String name() {
        return "strided-keys";
    }

    @Override
    public String description() {
        return "the orc-positioned reads on each of "
                + objects.stream().map(StoredObject::key).collect(Collectors.joining(", "))
                + ", one object after another";
    }

    /** Each object's reads wait for each other on one connection, the objects one after another. */
    @Override
    public LowerBound lowerBound() {
        return new LowerBound(
                patterns.stream()
                        .mapToInt(pattern -> pattern.lowerBound().roundTrips())
                        .sum(),
                1);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        long needed = 0;
        for (OrcPatternWorkload pattern : patterns) {
            needed += pattern.run(session).neededBytes();
        }
        return Outcome.needed(needed);
    }
}
