package io.rangefetch.tpch;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --name value} options the Spark servers of this build are started with. */
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
}
