package io.rangefetch.benchmarks;

import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * Runs the commands (the runner's here, the demo's in its own module), and names them in reports as a user would
 * type them again.
 */
public final class Launcher {

    /** Set by the {@code ./bench} and {@code ./demo} scripts to their own name. */
    public static final String PROPERTY = "rangefetch.launcher";

    private Launcher() {}

    /**
     * Runs a picocli command with {@code args}; answers its exit code. A value the command rejects once
     * parsed (an unknown reader, a scale out of range) is a usage error like one picocli finds itself: its
     * message and exit code 2, no stack trace.
     */
    public static int execute(Object command, String[] args) {
        return new CommandLine(command)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler((exception, commandLine, parsed) -> {
                    if (!(exception instanceof IllegalArgumentException)) {
                        throw exception;
                    }
                    commandLine.getErr().println(exception.getMessage());
                    commandLine.getErr().println("Try '" + commandLine.getCommandName() + " --help'.");
                    return commandLine.getCommandSpec().exitCodeOnInvalidInput();
                })
                .execute(args);
    }

    /**
     * The command line as a user would type it again: the launching script (or {@code java ... <main>}) and
     * the arguments, quoted where a shell needs it.
     *
     * @param main the main class, named when no script launched it
     */
    public static String commandLine(Class<?> main, String[] arguments) {
        String launcher = System.getProperty(PROPERTY, "java -cp ... " + main.getName());
        return Stream.concat(Stream.of(launcher), Arrays.stream(arguments).map(Launcher::quoted))
                .collect(Collectors.joining(" "));
    }

    private static String quoted(String argument) {
        return argument.matches("[A-Za-z0-9_./:=,@%+-]+") ? argument : "'" + argument.replace("'", "'\\''") + "'";
    }
}
