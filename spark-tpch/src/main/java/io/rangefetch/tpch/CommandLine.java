package io.rangefetch.tpch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --name value} options and the spark-defaults files the Spark servers of this build start with. */
public final class CommandLine {
    private CommandLine() {}

    /** The options by name, in order; fails on anything but {@code --name value} pairs. */
    public static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }

    /** A spark-defaults file: {@code key value} lines (whitespace between), {@code #} comments, blank lines. */
    public static Map<String, String> sparkDefaults(Path file) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] parts = trimmed.split("\\s+", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("not a 'key value' line in " + file + ": " + line);
            }
            settings.put(parts[0], parts[1].strip());
        }
        return settings;
    }
}
