package io.rangefetch.benchmarks;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.DataPreparer;
import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.data.IcebergTablePreparer;
import io.rangefetch.benchmarks.data.ListingLayout;
import io.rangefetch.benchmarks.data.ListingPreparer;
import io.rangefetch.benchmarks.data.ListingShape;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.StoredTable;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.listing.ListingResults;
import io.rangefetch.benchmarks.listing.ListingRunner;
import io.rangefetch.benchmarks.listing.ListingStrategy;
import io.rangefetch.benchmarks.listing.ListingSummary;
import io.rangefetch.benchmarks.listing.WantedSet;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.report.JsonReport;
import io.rangefetch.benchmarks.report.ListingReport;
import io.rangefetch.benchmarks.report.MachineInfo;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.report.RunDescription;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.report.Summary;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.ScenarioRunner;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.iceberg.aws.s3.S3FileIO;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One benchmark, start to end, in an environment someone else started: makes sure the data is on the
 * server, builds the workloads over it, measures every reader on every workload and summarises. The runner
 * ({@link Bench}) and the demo (module rangefetch-demo) differ only in what they ask for and how they print it.
 */
public final class BenchmarkRun {

    private static final long LISTING_SEED = 42;

    /**
     * What to measure.
     *
     * @param readers the readers, the first being the one the others are compared with
     * @param command the command line that started the run, for the report
     * @param listing the listing workload's layout at full scale
     */
    public record Plan(
            List<ReaderUnderTest> readers,
            DataSet data,
            List<String> workloads,
            double scale,
            int warmups,
            int runs,
            String command,
            ListingShape listing) {

        public Plan {
            readers = List.copyOf(readers);
            if (readers.isEmpty()) {
                throw new IllegalArgumentException("no readers to measure");
            }
            requireNonNull(data, "data is null");
            workloads = Workloads.select(workloads);
            requireNonNull(command, "command is null");
            requireNonNull(listing, "listing is null");
        }

        /** A plan whose listing workload, if any, lists the default layout. */
        public Plan(
                List<ReaderUnderTest> readers,
                DataSet data,
                List<String> workloads,
                double scale,
                int warmups,
                int runs,
                String command) {
            this(readers, data, workloads, scale, warmups, runs, command, ListingShape.BENCHMARK);
        }
    }

    /**
     * What a run found.
     *
     * @param listing the listing workload's results, if it ran
     * @param raw every row the runners measured, the listing's too
     */
    public record Results(
            RunDescription description, List<ResultRow> rows, Optional<ListingResults> listing, List<RowResult> raw) {

        JsonReport json() {
            return new JsonReport(
                    description,
                    rows,
                    List.of(),
                    listing.orElse(null),
                    raw.stream().flatMap(row -> row.samples().stream()).toList());
        }

        /** The listing section of the report, if the listing workload ran. */
        Optional<ListingReport> listingReport() {
            return listing.map(results -> new ListingReport(description, results, rows));
        }

        public boolean anyFailed() {
            return rows.stream().anyMatch(ResultRow::failed)
                    || listing.map(ListingResults::anyFailed).orElse(false);
        }
    }

    private BenchmarkRun() {}

    public static Results execute(BenchEnvironment environment, Plan plan) throws IOException {
        String started = now();
        Map<String, StoredObject> stored = prepareData(environment, plan.data(), plan.workloads());
        List<Workload> workloads = Workloads.create(
                plan.data(), plan.workloads(), stored, prepareTable(environment, plan.data(), plan.workloads()));
        List<RowResult> rows = new ScenarioRunner(
                        environment.target(), environment.traffic(), plan.warmups(), plan.runs())
                .run(plan.readers(), workloads);
        List<RowResult> listed = new ArrayList<>();
        Optional<ListingResults> listing = plan.workloads().contains(Workloads.LISTING)
                ? Optional.of(measureListing(environment, plan, listed))
                : Optional.empty();
        String reference = plan.readers().get(0).name();
        boolean modelled = environment.network().isPresent();
        RunDescription description = new RunDescription(
                plan.command(),
                started,
                MachineInfo.describe(),
                environment.describeServer(),
                environment.describeNetwork(),
                modelled,
                plan.scale(),
                plan.warmups(),
                plan.runs(),
                reference,
                plan.readers().stream()
                        .map(reader -> new Item(reader.name(), reader.configuration()))
                        .toList(),
                workloads.stream().map(workload -> describe(workload, modelled)).toList());
        return new Results(
                description,
                Summary.of(rows, workloads, environment.network(), reference),
                listing,
                Stream.concat(rows.stream(), listed.stream()).toList());
    }

    /**
     * The listing workload: its objects on the server, then every strategy on every wanted set; adds the rows it
     * measured to {@code raw}.
     */
    static ListingResults measureListing(BenchEnvironment environment, Plan plan, List<RowResult> raw)
            throws IOException {
        ListingLayout layout = ListingLayout.benchmark(plan.listing(), plan.scale());
        List<StoredObject> stored;
        try (S3Client s3 = environment.directClient()) {
            stored = new ListingPreparer(s3, environment.bucket()).ensure(layout);
        }
        List<WantedSet> sets = WantedSet.standard(layout, LISTING_SEED);
        List<ListingStrategy> strategies = ListingStrategy.all();
        List<RowResult> rows = new ListingRunner(
                        environment.target(), environment.traffic(), plan.warmups(), plan.runs())
                .run(sets, strategies, stored);
        raw.addAll(rows);
        return new ListingResults(
                layout.full().id(),
                String.format(
                        Locale.ROOT,
                        "%,d partitions of %d object(s) of "
                                + "about %d bytes under %s (%,d objects; layout %s at scale %s)",
                        layout.partitions(),
                        layout.filesPerPartition(),
                        ListingLayout.content(layout.keys(0).get(0)).length,
                        layout.root(),
                        stored.size(),
                        layout.full().id(),
                        plan.scale()),
                sets.stream().map(set -> new Item(set.id(), set.description())).toList(),
                strategies.stream()
                        .map(strategy -> new Item(strategy.name(), strategy.description()))
                        .toList(),
                ListingSummary.of(
                        rows, strategies.get(0).name(), strategies.get(1).name()));
    }

    /** The time now as reports give it: ISO 8601 with the offset, to the second. */
    static String now() {
        return ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }

    static Item describe(Workload workload, boolean modelled) {
        String bound = modelled ? " Lower bound: " + workload.lowerBound().formula() + "." : "";
        return new Item(workload.name(), workload.description() + "." + bound);
    }

    /** Makes sure the Iceberg table is on the server if one of the named workloads reads it. */
    static Optional<StoredTable> prepareTable(BenchEnvironment environment, DataSet data, List<String> workloads)
            throws IOException {
        if (!Workloads.readsTable(workloads)) {
            return Optional.empty();
        }
        // the FileIO owns its direct client and closes it
        try (S3Client s3 = environment.directClient();
                S3FileIO io = new S3FileIO(environment::directClient)) {
            io.initialize(Map.of());
            return Optional.of(new IcebergTablePreparer(s3, environment.bucket()).ensure(data.table(), io));
        }
    }

    /** Makes sure the objects the named workloads read are on the server; answers them by key. */
    static Map<String, StoredObject> prepareData(BenchEnvironment environment, DataSet data, List<String> workloads)
            throws IOException {
        Path scratch = Files.createTempDirectory("rangefetch-bench-data-");
        try (S3Client s3 = environment.directClient()) {
            return new DataPreparer(s3, environment.bucket(), scratch).ensure(Workloads.objects(data, workloads));
        } finally {
            try (Stream<Path> leftovers = Files.list(scratch)) {
                for (Path file : leftovers.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(scratch);
        }
    }
}
