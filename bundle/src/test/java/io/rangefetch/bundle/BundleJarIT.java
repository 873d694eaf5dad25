package io.rangefetch.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The bundle as an engine meets it: the packaged jar read entry by entry, then loaded into a class loader that
 * holds only it and an engine's jars (Iceberg, Hadoop S3A, the AWS SDK, parquet-java, slf4j), never this build's
 * modules or the libraries the bundle relocates.
 */
class BundleJarIT {
    private static final String SHADED = "io/rangefetch/shaded/";

    private static File bundle() {
        File jar = new File(System.getProperty("rangefetch.bundle.jar"));
        assertThat(jar).as("the packaged bundle").isFile();
        return jar;
    }

    @Test
    void everyClassIsUnderIoRangefetchAndTheThirdPartiesAreRelocated() throws IOException {
        Set<String> outside = new TreeSet<>();
        Set<String> shadedLibraries = new TreeSet<>();
        try (JarFile jar = new JarFile(bundle())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                String name = entries.nextElement().getName();
                if (!name.endsWith(".class")) {
                    continue;
                }
                if (!name.startsWith("io/rangefetch/")) {
                    outside.add(name);
                } else if (name.startsWith(SHADED)) {
                    shadedLibraries.add(name.substring(SHADED.length(), nthSlash(name, SHADED.length(), 3)));
                }
            }
            assertThat(jar.getEntry("module-info.class"))
                    .as("a class-path jar names no module")
                    .isNull();
            assertThat(jar.getEntry("io/rangefetch/StreamFactory.class")).isNotNull();
            // the client layer is a module of its own (rangefetch-client), which core's API names: bundled too
            assertThat(jar.getEntry("io/rangefetch/client/ObjectClient.class"))
                    .as("rangefetch-client's SPI")
                    .isNotNull();
            assertThat(jar.getEntry("io/rangefetch/client/SdkAsyncObjectClient.class"))
                    .as("rangefetch-client's SDK clients")
                    .isNotNull();
            assertThat(jar.getEntry("io/rangefetch/iceberg/RangefetchS3FileIO.class"))
                    .isNotNull();
            assertThat(jar.getEntry("io/rangefetch/hadoop/RangefetchStreamFactory.class"))
                    .isNotNull();
            assertThat(jar.getEntry("io/rangefetch/spark/RangefetchSparkPlugin.class"))
                    .as("the Spark plugin of docs/SPARK.md (spark.plugins)")
                    .isNotNull();
        }
        assertThat(outside).as("classes outside io/rangefetch/").isEmpty();
        assertThat(shadedLibraries).containsExactlyInAnyOrder("com/github/benmanes", "com/netflix/concurrency");
    }

    @Test
    void everyServiceFileNamesAClassTheJarHolds() throws IOException {
        Map<String, List<String>> services = new HashMap<>();
        try (JarFile jar = new JarFile(bundle())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (!entry.getName().startsWith("META-INF/services/") || entry.isDirectory()) {
                    continue;
                }
                List<String> providers = new ArrayList<>();
                try (InputStream in = jar.getInputStream(entry)) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                        String provider = line.replaceAll("#.*", "").trim();
                        if (!provider.isEmpty()) {
                            providers.add(provider);
                        }
                    }
                }
                services.put(entry.getName().substring("META-INF/services/".length()), providers);
            }
            // Core makes its built-in format policies itself; only the other modules' are found by the ServiceLoader.
            assertThat(services)
                    .as("service files")
                    .containsEntry(
                            "io.rangefetch.format.FormatPolicy", List.of("io.rangefetch.parquet.ParquetFormatPolicy"));
            for (Map.Entry<String, List<String>> service : services.entrySet()) {
                assertThat(service.getKey())
                        .as("a service type of ours or relocated")
                        .startsWith("io.rangefetch.");
                for (String provider : service.getValue()) {
                    assertThat(jar.getEntry(provider.replace('.', '/') + ".class"))
                            .as("%s, provider of %s", provider, service.getKey())
                            .isNotNull();
                }
            }
        }
    }

    /**
     * The FileIO initialized and asked for an input file (which makes its stream factory: the relocated Caffeine
     * runs), the S3A factory and the governor's limit loaded: all from the bundle and an engine's jars alone.
     */
    @Test
    void theFileIoAndTheFactoryLoadWithOnlyAnEnginesJarsBeside() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader engine = new URLClassLoader(engineClassPath(), ClassLoader.getPlatformClassLoader())) {
            thread.setContextClassLoader(engine); // as an engine runs its tasks: Iceberg looks classes up there
            assertThat(engine.getResource("com/github/benmanes/caffeine/cache/Caffeine.class"))
                    .as("Caffeine, unrelocated, on the engine's class path")
                    .isNull();
            assertThat(engine.getResource("io/rangefetch/internal/read/ObjectReader.class")
                            .getPath())
                    .as("ours, from the bundle alone")
                    .contains(bundle().getName());
            assertThat(engine.getResource("io/rangefetch/client/ObjectClient.class")
                            .getPath())
                    .as("the client SPI, from the bundle alone")
                    .contains(bundle().getName());

            Class<?> fileIoClass = Class.forName("io.rangefetch.iceberg.RangefetchS3FileIO", true, engine);
            Object fileIo = fileIoClass.getConstructor().newInstance();
            Map<String, String> properties = Map.of(
                    "s3.endpoint", "http://127.0.0.1:9", // never contacted: no read is made
                    "s3.path-style-access", "true",
                    "s3.access-key-id", "key",
                    "s3.secret-access-key", "secret",
                    "client.region", "us-east-1");
            fileIoClass.getMethod("initialize", Map.class).invoke(fileIo, properties);
            Method newInputFile = fileIoClass.getMethod("newInputFile", String.class, long.class);
            Object inputFile = newInputFile.invoke(fileIo, "s3://bucket/table/data.parquet", 1024L);
            assertThat(inputFile.getClass().getName()).startsWith("io.rangefetch.iceberg.");
            Class<?> inputFileType = engine.loadClass("org.apache.iceberg.io.InputFile");
            assertThat(inputFileType.getMethod("getLength").invoke(inputFile)).isEqualTo(1024L);
            fileIoClass.getMethod("close").invoke(fileIo);

            Class<?> factory = Class.forName("io.rangefetch.hadoop.RangefetchStreamFactory", true, engine);
            assertThat(factory.getConstructor().newInstance()).isNotNull();

            Class<?> limit = Class.forName("io.rangefetch.internal.fetch.LoadTestedLimit", true, engine);
            assertThat(limit.getSuperclass().getName()).startsWith("io.rangefetch.shaded.com.netflix.");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** The bundle, then this test's class path without this build's modules and the libraries the bundle holds. */
    private static URL[] engineClassPath() throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(bundle().toURI().toURL());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String path = entry.replace('\\', '/');
            boolean ours = path.contains("/io/rangefetch/")
                    || path.contains("/rangefetch-")
                    || (path.endsWith("/classes") && !path.endsWith("/test-classes"));
            boolean bundled = path.contains("/com/github/ben-manes/caffeine/")
                    || path.contains("/com/netflix/concurrency-limits/");
            if (!ours && !bundled && !path.endsWith("/test-classes")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }

    private static int nthSlash(String name, int from, int count) {
        int at = from - 1;
        for (int i = 0; i < count; i++) {
            int next = name.indexOf('/', at + 1);
            if (next < 0) {
                return name.length();
            }
            at = next;
        }
        return at;
    }
}
