package io.rangefetch.benchmarks.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The facts about this machine and JVM that a reader of the results needs to compare them with theirs. */
public final class MachineInfo {

    private MachineInfo() {}

    /** Labelled facts in display order: CPU, cores, memory, OS, JVM, heap. */
    public static Map<String, String> describe() {
        Map<String, String> facts = new LinkedHashMap<>();
        cpuModel().ifPresent(model -> facts.put("CPU", model));
        facts.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            facts.put("memory", gigabytes(os.getTotalMemorySize()));
        }
        facts.put(
                "OS",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                        + System.getProperty("os.arch") + ")");
        facts.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        facts.put("max heap", gigabytes(Runtime.getRuntime().maxMemory()));
        return facts;
    }

    private static String gigabytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }

    private static Optional<String> cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException | RuntimeException notLinux) {
            return Optional.empty();
        }
    }
}
