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
 * Nothing Rangefetch ships runs on the JVM's common pool (docs/ARCHITECTURE.md, "Threads"): an engine's own work
 * shares that pool, and a blocked task of ours would stall it. Caffeine runs its maintenance (evictions, removal
 * listeners) on the common pool unless its builder names an executor, so every Caffeine builder in the main sources
 * of every module names one. A text scan, as {@link ModuleBoundariesTest}'s: a builder chain runs from
 * {@code Caffeine.newBuilder()} to its {@code build(}, and must hold {@code .executor(} between the two.
 */
class NoCommonPoolTest {
    private static final Path TREE = Path.of("..");
    private static final Pattern BUILDER =
            Pattern.compile("Caffeine\\s*\\.\\s*newBuilder\\s*\\(\\)(.*?)\\.\\s*build\\s*\\(", Pattern.DOTALL);

    @Test
    void everyCaffeineCacheNamesItsExecutor() throws IOException {
        List<String> builders = new ArrayList<>();
        List<String> withoutExecutor = new ArrayList<>();
        for (Path file : mainSources()) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Matcher matcher = BUILDER.matcher(text);
            while (matcher.find()) {
                String where = TREE.relativize(file) + ":" + lineOf(text, matcher.start());
                builders.add(where);
                if (!matcher.group(1).contains(".executor(")) {
                    withoutExecutor.add(where);
                }
            }
        }
        assertThat(builders)
                .as("Caffeine builders found (so the scan sees them)")
                .hasSizeGreaterThan(3);
        assertThat(withoutExecutor)
                .as("Caffeine builders whose maintenance would run on the common pool")
                .isEmpty();
    }

    private static int lineOf(String text, int index) {
        return (int) text.substring(0, index).chars().filter(c -> c == '\n').count() + 1;
    }

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> modules = Files.list(TREE)) {
            return modules.filter(module -> Files.isRegularFile(module.resolve("pom.xml")))
                    .map(module -> module.resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .flatMap(NoCommonPoolTest::javaFiles)
                    .toList();
        }
    }

    private static Stream<Path> javaFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
