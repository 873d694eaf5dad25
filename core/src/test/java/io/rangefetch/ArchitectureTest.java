package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.format.FormatPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's packages depend downward only (ARCHITECTURE.md: "Arrows point down only"): the public API
 * ({@code io.rangefetch}) may use every package, the built-in format policies ({@code io.rangefetch.internal.format})
 * the format SPI and below, the format SPI ({@code io.rangefetch.format}) the engine and the client, the engine
 * ({@code io.rangefetch.internal.*}) the client, and the client ({@code io.rangefetch.client}) none of the others.
 * The client layer is a module of its own (rangefetch-client, under core in the Maven graph), so its rule is kept
 * twice: the module boundary (the client module depends on nothing of Rangefetch's, so it cannot compile against
 * a layer above it), and this test, which reads the client module's sources with core's and holds them to the
 * same rule, so the failure names the line if a dependency is ever added.
 * Three values of the API are below them all but the client: {@link Setting}, a setting's declaration, which the
 * format SPI and the engine name too (a policy declares its settings and reads them); {@link ObjectChangedException},
 * which the engine throws where it finds the object changed; and {@link ReadPolicy}, which a format session answers
 * as a caller's hint is. {@code Setting} refers to nothing of ours but the engine's value parsers, which this test
 * holds it to. This test reads the main sources and fails naming each file, line
 * and reference that points up.
 *
 * <p>Design: a text scan of the sources rather than a bytecode check or a library such as ArchUnit: one rule set
 * does not warrant a dependency, and a scan sees even an import that javac drops because nothing uses it. Comments
 * and literals are blanked first, so a Javadoc mention or a log message is not a dependency; every
 * {@code io.rangefetch...} name left (an import, a static import, a fully qualified name in code) is. A type can
 * only be named in another package through one of those, so what this misses is a type reached without naming
 * it (through {@code var}, or a method of an allowed type returning it), which the allowed type would already
 * have had to name. A package under {@code io.rangefetch} that is in no layer fails the test too: whoever adds
 * one decides where it sits.
 *
 * <p>The module declaration hides the engine on the module path only: on the class path, where Spark and Hadoop put
 * the jars, every public class is callable. So inside the engine a type is package-private unless another package of
 * core's main code names it, and the Javadoc of each one that is public says who, in a paragraph that starts
 * {@code <p><b>Public because</b>} (the same scan: tests, benchmarks and comments do not count as a use).
 *
 * <p>The module declaration keeps the engine inside on the module path; its exports are pinned here too (against
 * the compiled descriptors of core and of the client, whichever path the tests run on: they run on the class
 * path), and that core provides no format policy through the {@link java.util.ServiceLoader} (its built-in ones it
 * makes itself), on either path.
 */
class ArchitectureTest {
    // Surefire runs the core module's tests from core/; the client module is its sibling in the reactor.
    private static final Path MAIN_SOURCES = Path.of("src/main/java");
    private static final Path CLIENT_SOURCES = Path.of("../client/src/main/java");
    private static final Path MODULE_DESCRIPTOR = Path.of("target/classes/module-info.class");
    private static final Path CLIENT_MODULE_DESCRIPTOR = Path.of("../client/target/classes/module-info.class");
    private static final Path SERVICES =
            Path.of("src/main/resources/META-INF/services/" + FormatPolicy.class.getName());
    // The values of the API every layer but the client may name; the setting type names one package of ours only.
    private static final String SETTING = "io.rangefetch.Setting";
    private static final List<String> SHARED_VALUES =
            List.of(SETTING, "io.rangefetch.ObjectChangedException", "io.rangefetch.OpenOptions.ReadPolicy");
    private static final String SETTING_USES = "io.rangefetch.internal.config";
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    // A top-level type declared public: only a top-level declaration starts a line with its modifiers.
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed)\\s+)*(?:class|interface|@interface|record|enum)\\s+(\\w+)",
            Pattern.MULTILINE);
    // What the Javadoc of an engine type that is public starts the paragraph saying why with.
    static final String PUBLIC_BECAUSE = "<p><b>Public because</b>";
    // A name that starts with io.rangefetch, not as the tail of a longer qualified name.
    private static final Pattern REFERENCE =
            Pattern.compile("(?<![\\w$.])io\\s*\\.\\s*rangefetch(?:\\s*\\.\\s*(?:[\\w$]+|\\*))*");

    /** Core's layers, top first: a package may refer to its own layer and the ones after it. */
    enum Layer {
        API("io.rangefetch", "the public API"),
        POLICIES("io.rangefetch.internal.format", "the built-in format policies"),
        FORMAT("io.rangefetch.format", "the format SPI"),
        INTERNAL("io.rangefetch.internal", "the engine"),
        CLIENT("io.rangefetch.client", "the client SPI");

        final String root;
        final String description;

        Layer(String root, String description) {
            this.root = root;
            this.description = description;
        }

        /** The layer of a package of core; the API is exactly {@code io.rangefetch}, the others their subpackages too. */
        static Optional<Layer> of(String packageName) {
            if (packageName.equals(API.root)) {
                return Optional.of(API);
            }
            return Stream.of(POLICIES, FORMAT, INTERNAL, CLIENT)
                    .filter(layer -> packageName.equals(layer.root) || packageName.startsWith(layer.root + "."))
                    .findFirst();
        }
    }

    @Test
    void corePackagesDependDownwardOnly() throws IOException {
        List<String> violations = new ArrayList<>();
        Set<Layer> seen = EnumSet.noneOf(Layer.class);
        for (Path file : sources(MAIN_SOURCES)) {
            String packageName = violations(file.toString(), read(file), violations);
            Layer.of(packageName).ifPresent(seen::add);
        }
        Set<Layer> seenInClient = EnumSet.noneOf(Layer.class);
        for (Path file : sources(CLIENT_SOURCES)) {
            String packageName = violations(file.toString(), read(file), violations);
            Layer.of(packageName).ifPresent(seenInClient::add);
        }
        assertThat(seen)
                .as("layers found under %s", MAIN_SOURCES.toAbsolutePath())
                .containsExactlyInAnyOrder(Layer.API, Layer.POLICIES, Layer.FORMAT, Layer.INTERNAL);
        assertThat(seenInClient)
                .as("layers found under %s", CLIENT_SOURCES.toAbsolutePath().normalize())
                .containsExactly(Layer.CLIENT);
        assertThat(violations).as("references that point up a layer").isEmpty();
    }

    @Test
    void theModuleExportsTheApiAndTheFormatSpiOnlyToEveryoneAndPassesTheClientModuleOn() throws IOException {
        ModuleDescriptor module = moduleDescriptor(MODULE_DESCRIPTOR);
        assertThat(module.name()).isEqualTo("io.rangefetch.core");
        assertThat(module.exports()).allMatch(export -> !export.isQualified());
        assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source))
                .containsExactlyInAnyOrder(Layer.API.root, Layer.FORMAT.root);
        assertThat(module.opens()).isEmpty();
        assertThat(module.isOpen()).isFalse();
        // the API names the client's types (StreamFactory takes an ObjectClient), so core's users read its module
        assertThat(module.requires())
                .filteredOn(requires -> requires.name().equals("io.rangefetch.client"))
                .singleElement()
                .satisfies(requires ->
                        assertThat(requires.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE));
    }

    @Test
    void theClientModuleExportsTheClientSpiOnlyAndReadsNothingOfRangefetch() throws IOException {
        ModuleDescriptor client = moduleDescriptor(CLIENT_MODULE_DESCRIPTOR);
        assertThat(client.name()).isEqualTo("io.rangefetch.client");
        assertThat(client.exports()).allMatch(export -> !export.isQualified());
        assertThat(client.exports().stream().map(ModuleDescriptor.Exports::source))
                .containsExactly(Layer.CLIENT.root);
        assertThat(client.packages()).containsExactly(Layer.CLIENT.root);
        assertThat(client.requires())
                .map(ModuleDescriptor.Requires::name)
                .noneMatch(name -> name.startsWith("io.rangefetch"));
        assertThat(client.opens()).isEmpty();
    }

    /**
     * What users and SPI implementers can depend on: the public top-level types of the exported packages, pinned by
     * name, so that adding one is a decision (nest a type that exists only as one type's parameter or result).
     */
    @Test
    void theExportedSurfaceIsEighteenTopLevelTypes() throws IOException {
        List<String> exported = new ArrayList<>();
        for (Path directory : List.of(
                MAIN_SOURCES.resolve("io/rangefetch"),
                MAIN_SOURCES.resolve("io/rangefetch/format"),
                CLIENT_SOURCES.resolve("io/rangefetch/client"))) {
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher declared = PUBLIC_TYPE.matcher(codeOnly(read(file)));
                    if (declared.find()) {
                        exported.add(packageOf(directory) + "." + declared.group(1));
                    }
                }
            }
        }
        assertThat(exported)
                .containsExactlyInAnyOrder(
                        "io.rangefetch.StreamFactory",
                        "io.rangefetch.RangefetchMetrics",
                        "io.rangefetch.RangefetchOpenTelemetry",
                        "io.rangefetch.SharedFactories",
                        "io.rangefetch.StreamConfig",
                        "io.rangefetch.Setting",
                        "io.rangefetch.SeekableS3InputStream",
                        "io.rangefetch.OpenOptions",
                        "io.rangefetch.ObjectListing",
                        "io.rangefetch.StreamStatistics",
                        "io.rangefetch.ObjectChangedException",
                        "io.rangefetch.format.FormatPolicy",
                        "io.rangefetch.client.ObjectClient",
                        "io.rangefetch.client.S3Location",
                        "io.rangefetch.client.ListedObject",
                        "io.rangefetch.client.ByteRange",
                        "io.rangefetch.client.SseCustomerKey",
                        "io.rangefetch.client.HttpStatusException");
    }

    private static String packageOf(Path directory) {
        Path relative = directory.startsWith(MAIN_SOURCES)
                ? MAIN_SOURCES.relativize(directory)
                : CLIENT_SOURCES.relativize(directory);
        return relative.toString().replace('/', '.').replace('\\', '.');
    }

    @Test
    void coreLoadsFormatPoliciesOfOtherModulesAndProvidesNone() throws IOException {
        ModuleDescriptor module = moduleDescriptor(MODULE_DESCRIPTOR);
        assertThat(module.uses()).containsExactly(FormatPolicy.class.getName());
        assertThat(module.provides()).isEmpty();
        assertThat(SERVICES)
                .as("a services file: the built-in policies are made by the factory")
                .doesNotExist();
    }

    @Test
    void theSettingTypeIsNamedBelowTheApiAndNamesOnlyTheValueParsers() {
        String policy = """
                package io.rangefetch.internal.format;
                import io.rangefetch.Setting;
                import io.rangefetch.format.FormatPolicy;
                import io.rangefetch.StreamConfig;
                """;
        assertThat(violationsOf(policy))
                .containsExactly(
                        "X.java:4: io.rangefetch.internal.format imports io.rangefetch.StreamConfig (the built-in format "
                                + "policies must not use the public API)");
        String setting = """
                package io.rangefetch;
                import io.rangefetch.internal.config.ConfigValues;
                import io.rangefetch.internal.plan.RequestCostModel;
                public final class Setting<T> {}
                """;
        assertThat(violationsOf("Setting.java", setting))
                .containsExactly(
                        "Setting.java:3: io.rangefetch.Setting imports io.rangefetch.internal.plan.RequestCostModel (the "
                                + "setting type, which every layer may name, may use only io.rangefetch.internal.config)");
    }

    @Test
    void theApisSharedValuesAreNamedBelowItButNotByTheClient() {
        String engine = """
                package io.rangefetch.internal.read;
                import io.rangefetch.ObjectChangedException;
                import io.rangefetch.OpenOptions.ReadPolicy;
                import io.rangefetch.OpenOptions;
                """;
        assertThat(violationsOf(engine))
                .containsExactly(
                        "X.java:4: io.rangefetch.internal.read imports io.rangefetch.OpenOptions (the engine must"
                                + " not use the public API)");
        String client = """
                package io.rangefetch.client;
                import io.rangefetch.ObjectChangedException;
                """;
        assertThat(violationsOf(client))
                .containsExactly(
                        "X.java:2: io.rangefetch.client imports io.rangefetch.ObjectChangedException (the client"
                                + " SPI must not use the public API)");
    }

    @Test
    void aFormatFileImportingTheApiIsCaught() {
        String source = """
                package io.rangefetch.format;

                import io.rangefetch.OpenOptions;
                import io.rangefetch.internal.plan.AccessHint;
                import io.rangefetch.client.ByteRange;
                """;
        assertThat(violationsOf(source))
                .containsExactly(
                        "X.java:3: io.rangefetch.format imports io.rangefetch.OpenOptions (the format SPI must not use the"
                                + " public API)");
    }

    @Test
    void staticAndWildcardImportsCount() {
        String source = """
                package io.rangefetch.client;
                import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
                import io.rangefetch.internal.cache.*;
                import io.rangefetch.*;
                """;
        assertThat(violationsOf(source))
                .containsExactly(
                        "X.java:2: io.rangefetch.client imports io.rangefetch.StreamConfig.MIN_REQUEST_SIZE (the client SPI"
                                + " must not use the public API)",
                        "X.java:3: io.rangefetch.client imports io.rangefetch.internal.cache.* (the client SPI must not use"
                                + " the engine)",
                        "X.java:4: io.rangefetch.client imports io.rangefetch.* (the client SPI must not use the public API)");
    }

    @Test
    void aFullyQualifiedNameInCodeCountsAndOneInACommentOrLiteralDoesNot() {
        String source = """
                package io.rangefetch.internal.read;

                /** Reads for {@link io.rangefetch.SeekableS3InputStream}; see io.rangefetch.format.FormatPolicy. */
                final class Reader {
                    // io.rangefetch.StreamConfig is not used here
                    private static final String NAME = "io.rangefetch.StreamConfig";
                    private static final char DOT = '.';
                    private static final String BLOCK = \"""
                            io.rangefetch.format.FormatPolicy
                            \""";
                    io.rangefetch.format.FormatPolicy policy;
                    Object options = io.rangefetch.OpenOptions.defaults(); /* io.rangefetch.OpenOptions */
                }
                """;
        assertThat(violationsOf(source))
                .containsExactly(
                        "X.java:11: io.rangefetch.internal.read refers to io.rangefetch.format.FormatPolicy (the engine must"
                                + " not use the format SPI)",
                        "X.java:12: io.rangefetch.internal.read refers to io.rangefetch.OpenOptions.defaults (the engine must"
                                + " not use the public API)");
    }

    @Test
    void theApiMayUseEveryLayerAndAPackageOutsideTheLayersIsReported() {
        String api = """
                package io.rangefetch;
                import io.rangefetch.format.FormatPolicy;
                import io.rangefetch.internal.plan.AccessHint;
                import io.rangefetch.client.ByteRange;
                """;
        assertThat(violationsOf(api)).isEmpty();
        assertThat(violationsOf("package io.rangefetch.util;\n"))
                .containsExactly(
                        "X.java: io.rangefetch.util is in none of core's layers: give it one in ArchitectureTest.Layer");
    }

    @Test
    void theEnginesPublicTypesAreUsedByAnotherPackageAndSayWho() throws IOException {
        Map<String, String> sources = new TreeMap<>();
        for (Path file : sources(MAIN_SOURCES)) {
            sources.put(MAIN_SOURCES.relativize(file).toString().replace('\\', '/'), read(file));
        }
        assertThat(sources.keySet())
                .as("engine sources found under %s", MAIN_SOURCES.toAbsolutePath())
                .anyMatch(file -> file.startsWith("io/rangefetch/internal/"));
        assertThat(needlesslyOrSilentlyPublic(sources))
                .as("public engine types that no other package needs, or whose Javadoc does not say who does")
                .isEmpty();
    }

    @Test
    void anEngineTypeThatIsPublicForNothingOrWithoutSayingWhyIsCaught() {
        Map<String, String> sources = new TreeMap<>();
        sources.put("Used.java", """
                package io.rangefetch.internal.plan;
                /**
                 * Planned.
                 *
                 * <p><b>Public because</b> the reads use it.
                 */
                @SuppressWarnings("unused")
                public record Used(long at) {}
                """);
        sources.put("Unused.java", """
                package io.rangefetch.internal.plan;
                /** <p><b>Public because</b> nobody, any more. */
                public final class Unused {
                    Used used;
                }
                """);
        sources.put("Silent.java", """
                package io.rangefetch.internal.plan;
                /** Used, but says not by whom. */
                public enum Silent { ONE }
                """);
        sources.put("Inside.java", """
                package io.rangefetch.internal.plan;
                final class Inside {}
                """);
        sources.put("Reader.java", """
                package io.rangefetch.internal.read;
                import io.rangefetch.internal.plan.Used;
                /** Not {@link io.rangefetch.internal.plan.Unused}, whose name is in a comment only. */
                final class Reader {
                    String name = "io.rangefetch.internal.plan.Unused";
                    Object silent = io.rangefetch.internal.plan.Silent.ONE;
                }
                """);
        assertThat(needlesslyOrSilentlyPublic(sources))
                .containsExactly(
                        "Silent.java: io.rangefetch.internal.plan.Silent is public, and its Javadoc has no paragraph "
                                + "starting " + PUBLIC_BECAUSE + " that names who outside its package uses it",
                        "Unused.java: io.rangefetch.internal.plan.Unused is public, but no other package's main code "
                                + "names it: make it package-private");
    }

    @Test
    void aWildcardOrStaticImportCountsAsAUseOfWhatTheCodeNames() {
        Map<String, String> sources = new TreeMap<>();
        String type = """
                package io.rangefetch.internal.config;
                /** <p><b>Public because</b> the API parses with it. */
                public final class %s {
                    public static int parse(String value) { return 0; }
                }
                """;
        sources.put("Parsed.java", type.formatted("Parsed"));
        sources.put("Statically.java", type.formatted("Statically"));
        sources.put("Unnamed.java", type.formatted("Unnamed"));
        sources.put("Api.java", """
                package io.rangefetch;
                import static io.rangefetch.internal.config.Statically.parse;
                import io.rangefetch.internal.config.*;
                final class Api {
                    int size = Parsed.parse("1") + parse("2");
                }
                """);
        assertThat(needlesslyOrSilentlyPublic(sources))
                .containsExactly("Unnamed.java: io.rangefetch.internal.config.Unnamed is public, but no other "
                        + "package's main code names it: make it package-private");
    }

    /**
     * What is wrong with the public top-level types of the engine among {@code sources} (file name to text): one
     * that no file of another package names (in code: an import, a static import, a qualified name, or its simple
     * name under a wildcard import), and one whose Javadoc does not say who outside its package uses it.
     */
    private static List<String> needlesslyOrSilentlyPublic(Map<String, String> sources) {
        Map<String, String> codeOf = new TreeMap<>();
        Map<String, String> packageOf = new TreeMap<>();
        for (Map.Entry<String, String> source : sources.entrySet()) {
            String code = codeOnly(source.getValue());
            Matcher declared = PACKAGE.matcher(code);
            codeOf.put(source.getKey(), code);
            packageOf.put(source.getKey(), declared.find() ? declared.group(1) : "");
        }
        Set<String> usedElsewhere = new TreeSet<>();
        for (Map.Entry<String, String> file : codeOf.entrySet()) {
            Matcher reference = REFERENCE.matcher(file.getValue());
            while (reference.find()) {
                String name = reference.group().replaceAll("\\s", "");
                String target = packageOf(name);
                if (target.equals(packageOf.get(file.getKey()))) {
                    continue;
                }
                String rest = name.substring(Math.min(name.length(), target.length() + 1));
                if (rest.equals("*")) {
                    // every type of that package the code names by its simple name
                    Matcher word = Pattern.compile("[A-Z][\\w$]*").matcher(file.getValue());
                    while (word.find()) {
                        usedElsewhere.add(target + "." + word.group());
                    }
                } else if (!rest.isEmpty()) {
                    usedElsewhere.add(target + "." + rest.split("\\.")[0]);
                }
            }
        }
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, String> file : codeOf.entrySet()) {
            String packageName = packageOf.get(file.getKey());
            if (!packageName.equals(Layer.INTERNAL.root) && !packageName.startsWith(Layer.INTERNAL.root + ".")) {
                continue;
            }
            Matcher declared = PUBLIC_TYPE.matcher(file.getValue());
            if (!declared.find()) {
                continue;
            }
            String type = packageName + "." + declared.group(1);
            if (!classJavadoc(sources.get(file.getKey()), declared.start()).contains(PUBLIC_BECAUSE)) {
                violations.add(file.getKey() + ": " + type + " is public, and its Javadoc has no paragraph starting "
                        + PUBLIC_BECAUSE + " that names who outside its package uses it");
            }
            if (!usedElsewhere.contains(type)) {
                violations.add(file.getKey() + ": " + type + " is public, but no other package's main code names it: "
                        + "make it package-private");
            }
        }
        return violations;
    }

    /** The Javadoc comment right before the declaration at {@code declaration} (annotations between), or "". */
    private static String classJavadoc(String source, int declaration) {
        int end = source.lastIndexOf("*/", declaration);
        int start = end < 0 ? -1 : source.lastIndexOf("/**", end);
        if (start < 0
                || !source.substring(end + 2, declaration)
                        .strip()
                        .replaceAll("@[\\w.]+(\\([^)]*\\))?", "")
                        .isBlank()) {
            return "";
        }
        return source.substring(start, end + 2);
    }

    private static List<String> violationsOf(String source) {
        return violationsOf("X.java", source);
    }

    private static List<String> violationsOf(String file, String source) {
        List<String> violations = new ArrayList<>();
        violations(file, source, violations);
        return violations;
    }

    /** Adds what {@code source} refers to against the layers to {@code violations}; returns its package. */
    private static String violations(String file, String source, List<String> violations) {
        String code = codeOnly(source);
        Matcher declared = PACKAGE.matcher(code);
        if (!declared.find()) {
            violations.add(file + ": declares no package");
            return "";
        }
        String packageName = declared.group(1);
        Optional<Layer> layer = Layer.of(packageName);
        if (layer.isEmpty()) {
            violations.add(file + ": " + packageName + " is in none of core's layers: give it one in "
                    + "ArchitectureTest.Layer");
            return packageName;
        }
        String[] lines = code.split("\n", -1);
        int packageLine = lineOf(code, declared.start(1));
        boolean isSetting = packageName.equals(Layer.API.root)
                && Path.of(file).getFileName().toString().equals("Setting.java");
        for (int line = 0; line < lines.length; line++) {
            if (line == packageLine) {
                continue;
            }
            Matcher reference = REFERENCE.matcher(lines[line]);
            while (reference.find()) {
                String name = reference.group().replaceAll("\\s", "");
                boolean imported = lines[line].trim().startsWith("import");
                if (isSetting && !packageOf(name).equals(SETTING_USES)) {
                    violations.add(file + ":" + (line + 1) + ": " + SETTING + (imported ? " imports " : " refers to ")
                            + name + " (the setting type, which every layer may name, may use only " + SETTING_USES
                            + ")");
                    continue;
                }
                if (layer.get() != Layer.CLIENT
                        && SHARED_VALUES.stream()
                                .anyMatch(value -> name.equals(value) || name.startsWith(value + "."))) {
                    continue;
                }
                Optional<Layer> target = Layer.of(packageOf(name));
                if (target.isPresent() && target.get().ordinal() < layer.get().ordinal()) {
                    violations.add(file + ":" + (line + 1) + ": " + packageName
                            + (imported ? " imports " : " refers to ")
                            + name + " (" + layer.get().description + " must not use " + target.get().description
                            + ")");
                }
            }
        }
        return packageName;
    }

    /** The package part of a qualified name: up to its first capitalized segment (a type) or {@code *}. */
    private static String packageOf(String qualifiedName) {
        List<String> packageSegments = new ArrayList<>();
        for (String segment : qualifiedName.split("\\.")) {
            if (segment.equals("*") || Character.isUpperCase(segment.charAt(0))) {
                break;
            }
            packageSegments.add(segment);
        }
        return String.join(".", packageSegments);
    }

    private static int lineOf(String text, int index) {
        return (int) text.substring(0, index).chars().filter(c -> c == '\n').count();
    }

    /**
     * {@code source} with its comments, string literals, text blocks and character literals blanked out (line
     * breaks kept, so line numbers stay right).
     */
    static String codeOnly(String source) {
        StringBuilder code = new StringBuilder(source);
        int i = 0;
        while (i < source.length()) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? source.length() : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? source.length() : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = endOfQuoted(source, i + 3, "\"\"\"");
            } else if (source.charAt(i) == '"') {
                end = endOfQuoted(source, i + 1, "\"");
            } else if (source.charAt(i) == '\'') {
                end = endOfQuoted(source, i + 1, "'");
            } else {
                i++;
                continue;
            }
            for (int blank = i; blank < end; blank++) {
                if (code.charAt(blank) != '\n') {
                    code.setCharAt(blank, ' ');
                }
            }
            i = end;
        }
        return code.toString();
    }

    /** Where a literal whose body starts at {@code from} ends, after its closing {@code quote}; escapes skipped. */
    private static int endOfQuoted(String source, int from, String quote) {
        int i = from;
        while (i < source.length()) {
            if (source.charAt(i) == '\\') {
                i += 2;
            } else if (source.startsWith(quote, i)) {
                return i + quote.length();
            } else {
                i++;
            }
        }
        return source.length();
    }

    private static ModuleDescriptor moduleDescriptor(Path compiled) throws IOException {
        try (InputStream in = Files.newInputStream(compiled)) {
            return ModuleDescriptor.read(in);
        }
    }

    private static List<Path> sources(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            // a module declaration names packages of every layer by design
            return files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.getFileName().toString().equals("module-info.java"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /**
     * The settings and the format policies each ask {@code InstalledFormatPolicies} which policies are installed:
     * neither loads the other, so that making one does not start the other's static setup half-way through its own.
     */
    @Test
    void theSettingsAndTheFormatPoliciesDoNotLoadEachOther() {
        Pattern formatPolicies = Pattern.compile("\\bFormatPolicies\\b");
        Pattern streamConfig = Pattern.compile("\\bStreamConfig\\b");
        String settings = codeOnly(read(MAIN_SOURCES.resolve("io/rangefetch/StreamConfig.java")));
        String installed = codeOnly(read(MAIN_SOURCES.resolve("io/rangefetch/InstalledFormatPolicies.java")));
        assertThat(formatPolicies.matcher(settings).find())
                .as("StreamConfig names FormatPolicies")
                .isFalse();
        assertThat(streamConfig.matcher(installed).find()
                        || formatPolicies.matcher(installed).find())
                .as("InstalledFormatPolicies names StreamConfig or FormatPolicies")
                .isFalse();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
