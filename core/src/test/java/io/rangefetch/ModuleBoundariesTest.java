package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No module but core reaches into core's engine: the adapters, the Parquet module, the bundle, the benchmarks, the
 * demo, the test fixtures and the suites use only what core's module declaration exports (docs/ARCHITECTURE.md,
 * "Modules"). On the module path the declaration already keeps them out; on the class path, where engines run
 * Rangefetch, nothing would, so this test reads every Java file of every other module (main, test and benchmark
 * sources) and fails naming each file and line that names a type under {@code io.rangefetch.internal}.
 *
 * <p>Design: the same text scan as {@link ArchitectureTest} (comments and literals blanked first, so a mention in a
 * Javadoc or a message is not a use), run from core because core is the module whose inside is at stake. The tree is
 * found from core's directory, where Surefire runs its tests; the modules are the directories with a {@code pom.xml},
 * so a module added later is checked without being listed here.
 *
 * <p>One exception, in one place: the timeline's tests ({@code timeline/src/test}) may name the Flight Recorder events
 * of {@code io.rangefetch.internal.events}, and nothing else of the engine. The timeline reads those events by name
 * from recordings (its main code names no class of core's); its tests record core's own event classes, so that a
 * renamed event or field fails them instead of leaving the timeline reading blanks.
 */
class ModuleBoundariesTest {
    // Surefire runs the core module's tests from core/; the other modules are its siblings.
    private static final Path TREE = Path.of("..");
    private static final Pattern INTERNAL =
            Pattern.compile("(?<![\\w$.])io\\s*\\.\\s*rangefetch\\s*\\.\\s*internal\\b");
    private static final Pattern EVENTS = Pattern.compile(
            "(?<![\\w$.])io\\s*\\.\\s*rangefetch\\s*\\.\\s*internal\\s*\\.\\s*events\\s*\\.\\s*(?:[\\w$]+|\\*)");
    private static final Path EVENTS_RECORDED_BY =
            TREE.resolve("timeline").resolve("src").resolve("test");

    @Test
    void noOtherModuleNamesCoresEngine() throws IOException {
        List<String> modules = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        for (Path module : otherModules()) {
            modules.add(module.getFileName().toString());
            for (Path file : javaSources(module)) {
                violations.addAll(internalReferences(
                        TREE.relativize(file).toString(), read(file), file.startsWith(EVENTS_RECORDED_BY)));
            }
        }
        assertThat(modules)
                .as("the modules found beside core")
                .contains(
                        "parquet",
                        "iceberg-integration",
                        "hadoop-s3a-integration",
                        "hadoop-compat-tests",
                        "bundle",
                        "integration-tests",
                        "benchmarks",
                        "demo-app",
                        "spark-tpch",
                        "timeline");
        assertThat(violations)
                .as("references to core's engine from other modules")
                .isEmpty();
    }

    @Test
    void anImportAStaticImportAndAQualifiedNameInCodeCountButACommentOrALiteralDoesNot() {
        String source = """
                package io.rangefetch.benchmarks;

                import io.rangefetch.internal.plan.ReadPlanner;
                import static io.rangefetch.internal.config.ConfigValues.parseSize;
                /** Unlike {@link io.rangefetch.internal.plan.RangeCoalescer}, this is fine. */
                class X {
                    // io.rangefetch.internal.cache.BlockCache is not used
                    String name = "io.rangefetch.internal.read.ObjectReader";
                    Object planner = io.rangefetch.internal.plan.ReadPlanner.class;
                    Object unrelated = my.io.rangefetch.internal.Thing.class;
                }
                """;
        assertThat(internalReferences("X.java", source, false)).containsExactly("X.java:3", "X.java:4", "X.java:9");
    }

    @Test
    void theTimelinesTestsMayNameTheEventsAndNothingElseOfTheEngine() {
        String source = """
                package io.rangefetch.timeline;

                import io.rangefetch.internal.events.GetAttemptEvent;
                import io.rangefetch.internal.events.*;
                import io.rangefetch.internal.read.ObjectReader;
                class X {
                    Object event = io.rangefetch.internal.events.ReadWaitEvent.class;
                }
                """;
        assertThat(internalReferences("X.java", source, true)).containsExactly("X.java:5");
        assertThat(internalReferences("X.java", source, false))
                .containsExactly("X.java:3", "X.java:4", "X.java:5", "X.java:7");
    }

    /**
     * Each line of {@code source} (as {@code file:line}) that names something under {@code io.rangefetch.internal}
     * ({@code mayNameEvents}: other than the Flight Recorder events).
     */
    static List<String> internalReferences(String file, String source, boolean mayNameEvents) {
        String code = ArchitectureTest.codeOnly(source);
        if (mayNameEvents) {
            // blanked, not removed, so that the lines keep their numbers
            code = EVENTS.matcher(code)
                    .replaceAll(match -> " ".repeat(match.group().length()));
        }
        List<String> found = new ArrayList<>();
        Matcher matcher = INTERNAL.matcher(code);
        while (matcher.find()) {
            String at = file + ":"
                    + (code.substring(0, matcher.start())
                                    .chars()
                                    .filter(c -> c == '\n')
                                    .count()
                            + 1);
            if (!found.contains(at)) {
                found.add(at);
            }
        }
        return found;
    }

    private static List<Path> otherModules() throws IOException {
        try (Stream<Path> children = Files.list(TREE)) {
            return children.filter(dir -> Files.isRegularFile(dir.resolve("pom.xml")))
                    .filter(dir -> !dir.getFileName().toString().equals("core"))
                    .sorted()
                    .toList();
        }
    }

    private static List<Path> javaSources(Path module) throws IOException {
        Path sources = module.resolve("src");
        if (!Files.isDirectory(sources)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .sorted()
                    .toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
