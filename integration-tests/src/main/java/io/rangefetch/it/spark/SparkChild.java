package io.rangefetch.it.spark;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Spark JVM, a server of the {@code spark-tpch} build ({@code io.rangefetch.tpch.SparkQueryServer} for the TPC-H
 * benchmark, {@code io.rangefetch.sparkcheck.SparkCheckServer} for the Spark integration test) or of the
 * {@code spark-compat} build ({@code io.rangefetch.sparkcompat.S3ACompatServer}, Spark 3.5 and 4.0) that runs queries
 * through one read path, driven over its standard input and output: one command a line, one answer a line prefixed
 * {@code @@ }. Its other output (Spark's logs) goes to a log file. Closing asks it to quit, then ends it.
 *
 * <p>Not thread-safe: one coordinator thread talks to it.
 */
public final class SparkChild implements AutoCloseable {
    private static final String ANSWER = "@@ ";
    // the shaded jar, not the shade plugin's original-... copy, its sources or its tests
    private static final Pattern BUNDLE_JAR = Pattern.compile("rangefetch-bundle-[^-]+(-SNAPSHOT)?\\.jar");
    private static final Duration QUIT_GRACE = Duration.ofSeconds(30);

    /** Spark (3.5 to 4.1) on Java 17 needs these modules opened to it. */
    private static final List<String> OPENS = List.of(
            "java.base/java.lang",
            "java.base/java.lang.invoke",
            "java.base/java.lang.reflect",
            "java.base/java.io",
            "java.base/java.net",
            "java.base/java.nio",
            "java.base/java.util",
            "java.base/java.util.concurrent",
            "java.base/java.util.concurrent.atomic",
            "java.base/sun.nio.ch",
            "java.base/sun.nio.cs",
            "java.base/sun.security.action",
            "java.base/sun.util.calendar");

    private final Process process;
    private final BufferedReader answers;
    private final Writer commands;
    private final String path;

    private SparkChild(Process process, String path) {
        this.process = process;
        this.path = path;
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * The class path of a Spark JVM, as a user's {@code spark-submit --jars} makes it: the {@code spark-tpch} build's
     * classes and libraries (Spark, S3A, the AWS SDK, Iceberg's runtime; nothing of Rangefetch's) and the one
     * {@code rangefetch-bundle} jar in {@code bundle/target}.
     *
     * @param repository the repository's root, where both were built
     * @throws IOException when either is missing, saying how to build it
     */
    public static String classPath(Path repository) throws IOException {
        return classPath(repository, Path.of("spark-tpch", "target"), "./mvnw -B -f spark-tpch/pom.xml package");
    }

    /**
     * The class path of a Spark JVM from another Spark build: its {@code classes} and {@code lib} directories (as
     * {@code spark-tpch}'s package step leaves them) and the one {@code rangefetch-bundle} jar in
     * {@code bundle/target}.
     *
     * @param repository the repository's root, where both were built
     * @param build the build's output directory, relative to the root (e.g. {@code spark-compat/target/spark-4.0})
     * @param buildCommand the command that builds it, for the message when it is missing
     * @throws IOException when either is missing, saying how to build it
     */
    public static String classPath(Path repository, Path build, String buildCommand) throws IOException {
        requireNonNull(build, "build is null");
        requireNonNull(buildCommand, "buildCommand is null");
        Path classes = repository.resolve(build).resolve("classes");
        Path libraries = repository.resolve(build).resolve("lib");
        if (!Files.isDirectory(classes) || !Files.isDirectory(libraries)) {
            throw new IOException("no Spark build in " + repository.resolve(build) + ": run " + buildCommand);
        }
        Path bundle;
        try (Stream<Path> jars = Files.list(repository.resolve("bundle/target"))) {
            bundle = jars.filter(jar ->
                            BUNDLE_JAR.matcher(jar.getFileName().toString()).matches())
                    .findFirst()
                    .orElseThrow(() -> new IOException("no rangefetch-bundle jar"));
        } catch (IOException | UncheckedIOException e) {
            throw new IOException(
                    "no rangefetch-bundle jar in " + repository.resolve("bundle/target")
                            + ": run ./mvnw -B package -pl bundle -am -DskipTests",
                    e);
        }
        return classes + File.pathSeparator + libraries.resolve("*") + File.pathSeparator + bundle;
    }

    /**
     * Starts the Spark JVM for {@code path} and waits for it to be ready.
     *
     * @param mainClass the server's class
     * @param classPath a Spark build's classes and libraries, and Rangefetch's bundle jar ({@link #classPath})
     * @param options the server's {@code --name value} options, {@code path} among them
     * @param heap the JVM's {@code -Xmx}
     */
    public static SparkChild start(
            String mainClass, String classPath, Map<String, String> options, String heap, Path log) throws IOException {
        return start(mainClass, classPath, options, heap, List.of(), log);
    }

    /**
     * Starts the Spark JVM as {@link #start(String, String, Map, String, Path)} does, with {@code javaOptions}
     * besides (a Flight Recorder recording, say).
     */
    public static SparkChild start(
            String mainClass,
            String classPath,
            Map<String, String> options,
            String heap,
            List<String> javaOptions,
            Path log)
            throws IOException {
        requireNonNull(mainClass, "mainClass is null");
        requireNonNull(classPath, "classPath is null");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + heap);
        command.addAll(javaOptions);
        for (String open : OPENS) {
            command.add("--add-opens=" + open + "=ALL-UNNAMED");
        }
        command.add("-Djdk.reflect.useDirectMethodHandle=false");
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        options.forEach((name, value) -> {
            command.add("--" + name);
            command.add(value);
        });
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        SparkChild child = new SparkChild(process, options.get("path"));
        try {
            child.expect("READY");
        } catch (IOException | RuntimeException e) {
            child.close();
            throw e;
        }
        return child;
    }

    /** Sends {@code command} and answers the answer line, without its prefix. */
    public String call(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
        return next();
    }

    /** Sends {@code command}, expecting {@code expected} back. */
    public void expectCall(String command, String expected) throws IOException {
        String answer = call(command);
        if (!answer.equals(expected)) {
            throw new IOException(path + ": " + command + " answered '" + answer + "', not " + expected);
        }
    }

    private void expect(String expected) throws IOException {
        String answer = next();
        if (!answer.equals(expected)) {
            throw new IOException(path + ": expected " + expected + ", got '" + answer + "'");
        }
    }

    private String next() throws IOException {
        for (String line = answers.readLine(); line != null; line = answers.readLine()) {
            if (line.startsWith(ANSWER)) {
                return line.substring(ANSWER.length());
            }
        }
        throw new IOException("the Spark process of " + path + " ended (exit code "
                + (process.isAlive() ? "none yet" : process.exitValue()) + "); see its log");
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                commands.write("QUIT\n");
                commands.flush();
                commands.close();
            }
        } catch (IOException e) {
            // the process has gone already: nothing to ask
        }
        try {
            if (!process.waitFor(QUIT_GRACE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
