package io.rangefetch.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * Everything about a run that the results need beside the numbers: how it was started, where, against
 * what, and what each reader and workload is.
 *
 * @param machine labelled facts about the machine, in display order
 * @param network the modelled network, or a sentence saying nothing was modelled
 * @param referenceReader the reader the ratios divide by
 */
public record RunDescription(
        String command,
        String started,
        Map<String, String> machine,
        String server,
        String network,
        boolean networkModelled,
        double scale,
        int warmups,
        int runs,
        String referenceReader,
        List<Item> readers,
        List<Item> workloads) {

    public RunDescription {
        requireNonNull(command, "command is null");
        requireNonNull(started, "started is null");
        machine = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(machine));
        requireNonNull(server, "server is null");
        requireNonNull(network, "network is null");
        requireNonNull(referenceReader, "referenceReader is null");
        readers = List.copyOf(readers);
        workloads = List.copyOf(workloads);
    }

    /** A reader or workload: its name and one line about it. */
    public record Item(String name, String description) {
        public Item {
            requireNonNull(name, "name is null");
            requireNonNull(description, "description is null");
        }
    }
}
