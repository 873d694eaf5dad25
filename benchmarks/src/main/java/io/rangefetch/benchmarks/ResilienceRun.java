package io.rangefetch.benchmarks;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.DataSet;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.env.BenchEnvironment;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.report.JsonReport;
import io.rangefetch.benchmarks.report.MachineInfo;
import io.rangefetch.benchmarks.report.ResilienceReport;
import io.rangefetch.benchmarks.report.ResultRow;
import io.rangefetch.benchmarks.report.RunDescription;
import io.rangefetch.benchmarks.report.RunDescription.Item;
import io.rangefetch.benchmarks.resilience.ResilienceSummary;
import io.rangefetch.benchmarks.resilience.ResilienceSummary.Measured;
import io.rangefetch.benchmarks.resilience.Scenario;
import io.rangefetch.benchmarks.resilience.Scenario.Variant;
import io.rangefetch.benchmarks.run.Condition;
import io.rangefetch.benchmarks.run.FaultPlan.RateLimit;
import io.rangefetch.benchmarks.run.RowResult;
import io.rangefetch.benchmarks.run.ScenarioRunner;
import io.rangefetch.benchmarks.run.ScenarioRunner.Row;
import io.rangefetch.benchmarks.workload.Workload;
import io.rangefetch.benchmarks.workload.Workloads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The resilience scenarios, start to end, in an environment someone else started: each scenario's workloads
 * with each reader (Rangefetch with the scenario's feature on and off), once clean and once under the
 * scenario's faults, then the rows side by side. A reader variant's clean row on a workload is measured once
 * however many scenarios need it.
 */
final class ResilienceRun {

    /**
     * What to measure.
     *
     * @param workloads if given, only these of each scenario's workloads run
     * @param rateLimit the request-rate limit of {@link Scenario#RATE_LIMIT}
     */
    record Plan(
            List<ReaderUnderTest> readers,
            DataSet data,
            List<Scenario> scenarios,
            Optional<List<String>> workloads,
            RateLimit rateLimit,
            double scale,
            int warmups,
            int runs,
            String command) {

        Plan {
            readers = List.copyOf(readers);
            scenarios = List.copyOf(scenarios);
            if (readers.isEmpty() || scenarios.isEmpty()) {
                throw new IllegalArgumentException("no readers or no scenarios to measure");
            }
            requireNonNull(data, "data is null");
            Optional<List<String>> only = workloads.map(Workloads::select);
            if (scenarios.stream()
                    .allMatch(scenario -> workloadsOf(scenario, only).isEmpty())) {
                throw new IllegalArgumentException(
                        "--workloads " + String.join(",", only.orElseThrow()) + " leaves no workload of "
                                + scenarios.stream().map(Scenario::id).toList());
            }
            workloads = only;
            requireNonNull(rateLimit, "rateLimit is null");
            requireNonNull(command, "command is null");
        }

        /** Every workload some scenario runs, in report order. */
        List<String> allWorkloads() {
            Set<String> all = new LinkedHashSet<>();
            scenarios.forEach(scenario -> all.addAll(workloadsOf(scenario, workloads)));
            return Workloads.select(all);
        }

        private static List<String> workloadsOf(Scenario scenario, Optional<List<String>> only) {
            return scenario.workloads().stream()
                    .filter(name -> only.map(names -> names.contains(name)).orElse(true))
                    .toList();
        }
    }

    /** What a run found, and each scenario's report. */
    record Results(
            RunDescription description,
            List<ResultRow> rows,
            List<RowResult> raw,
            Map<Scenario, ResilienceReport> reports) {

        JsonReport json() {
            return new JsonReport(
                    description,
                    List.of(),
                    rows,
                    null,
                    raw.stream().flatMap(row -> row.samples().stream()).toList());
        }

        boolean anyFailed() {
            return rows.stream().anyMatch(ResultRow::failed);
        }
    }

    private ResilienceRun() {}

    static Results execute(BenchEnvironment environment, Plan plan) throws IOException {
        String started = BenchmarkRun.now();
        List<String> names = plan.allWorkloads();
        Map<String, StoredObject> stored = BenchmarkRun.prepareData(environment, plan.data(), names);
        Map<String, Workload> workloads = new LinkedHashMap<>();
        Workloads.create(plan.data(), names, stored, BenchmarkRun.prepareTable(environment, plan.data(), names))
                .forEach(workload -> workloads.put(workload.name(), workload));

        // the rows to run, in report order: a variant's clean row just before its first faulted one
        List<Row> rows = new ArrayList<>();
        Map<String, Integer> cleanRows = new LinkedHashMap<>();
        List<Pairing> pairings = new ArrayList<>();
        Map<String, ReaderUnderTest> variants = new LinkedHashMap<>();
        for (Scenario scenario : plan.scenarios()) {
            Condition condition = new Condition(scenario.id(), scenario.faults(plan.rateLimit()));
            for (String name : Plan.workloadsOf(scenario, plan.workloads())) {
                Workload workload = workloads.get(name);
                for (ReaderUnderTest reader : plan.readers()) {
                    for (Variant variant : scenario.variants(reader)) {
                        ReaderUnderTest measured = variant.reader();
                        variants.putIfAbsent(measured.name(), measured);
                        int clean = cleanRows.computeIfAbsent(measured.name() + " · " + name, key -> {
                            rows.add(new Row(measured, workload, Condition.CLEAN));
                            return rows.size() - 1;
                        });
                        rows.add(new Row(measured, workload, condition));
                        pairings.add(new Pairing(scenario, reader.name(), variant.feature(), clean, rows.size() - 1));
                    }
                }
            }
        }
        List<RowResult> results = new ScenarioRunner(
                        environment.target(), environment.traffic(), environment.faults(), plan.warmups(), plan.runs())
                .run(rows);
        List<ResultRow> summary = ResilienceSummary.of(pairings.stream()
                .map(pairing -> new Measured(
                        pairing.scenario(),
                        pairing.reader(),
                        pairing.feature(),
                        results.get(pairing.clean()),
                        results.get(pairing.faulted())))
                .toList());

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
                plan.readers().get(0).name(),
                variants.values().stream()
                        .map(reader -> new Item(reader.name(), reader.configuration()))
                        .toList(),
                workloads.values().stream()
                        .map(workload -> BenchmarkRun.describe(workload, false))
                        .toList());
        Map<Scenario, ResilienceReport> reports = new EnumMap<>(Scenario.class);
        for (Scenario scenario : plan.scenarios()) {
            reports.put(
                    scenario, new ResilienceReport(description, scenario, scenario.faults(plan.rateLimit()), summary));
        }
        return new Results(description, summary, results, reports);
    }

    /** A faulted row and the clean row it is compared with, by their places in the list of rows to run. */
    private record Pairing(Scenario scenario, String reader, Optional<String> feature, int clean, int faulted) {}
}
