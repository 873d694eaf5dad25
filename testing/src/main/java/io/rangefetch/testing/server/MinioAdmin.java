package io.rangefetch.testing.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Users and policies on one running MinIO, through {@code rangefetch-minio-admin}: a small Go program of this
 * repository's ({@code testing/minio-admin}, built by {@code .ci/run}) on MinIO's own admin library, madmin-go.
 * MinIO's admin API encrypts the bodies of some requests (a new user's secret key, for one) with the root secret key
 * (sio-go, with a key derived by Argon2id), which no Java library here speaks and madmin-go does. MinIO's client
 * {@code mc} speaks it too, but building it took CI minutes; the helper needs only modules MinIO's own build has
 * already fetched and compiled.
 *
 * <p>No secret is on the helper's command line, where {@code ps} or a message quoting the command would show it: the
 * root credentials and the new user's secret key go in its environment ({@code MINIO_ADMIN_*}), set by this class
 * alone: any such variable the JVM inherited is dropped first. For a TLS server the certificate is written to a
 * file in this admin's directory and named with {@code --ca-file}: the helper trusts that certificate and nothing
 * else, with no way to skip the check.
 *
 * <p>Each command is a child process with a timeout (the helper gives up a little earlier by itself, and says why);
 * its output goes to a file (no pipe to drain, no reader thread) and is quoted when the command fails, with every
 * secret key this class was given replaced by {@value #REDACTED}, in the output as in the command shown, which names
 * the environment variables set for it. Thread-safe: commands run one at a time.
 */
final class MinioAdmin {

    static final String REDACTED = "<redacted>";
    /** The name {@code .ci/run} builds the helper under, and the one messages show it by. */
    static final String HELPER = "rangefetch-minio-admin";

    // the helper's own timeout, under the one it is killed after: a slow server gets its message, not a kill
    private static final Duration HELPER_TIMEOUT = Duration.ofSeconds(50);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final String ENV_PREFIX = "MINIO_ADMIN_";
    private static final String ENV_ACCESS_KEY = ENV_PREFIX + "ACCESS_KEY";
    private static final String ENV_SECRET_KEY = ENV_PREFIX + "SECRET_KEY";
    private static final String ENV_USER_SECRET_KEY = ENV_PREFIX + "USER_SECRET_KEY";
    // what S3 and MinIO allow in a bucket name; anything else could change a policy's JSON or ARN
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]*");

    private final Path helper;
    private final Path directory;
    private final List<String> connection;
    private final Map<String, String> rootCredentials;
    private final Set<String> secrets = new HashSet<>();
    private final Set<String> policies = new HashSet<>();

    private MinioAdmin(Path helper, Path directory, List<String> connection, Map<String, String> rootCredentials) {
        this.helper = helper;
        this.directory = directory;
        this.connection = connection;
        this.rootCredentials = rootCredentials;
    }

    /**
     * An admin of the server at {@code endpoint} with the root credentials, through {@code helper}; {@code
     * certificate} is the one to trust for {@code https}. Makes {@code directory} (which the caller deletes) for the
     * certificate, the policies and the last command's output; asks the server nothing yet.
     */
    static MinioAdmin connect(
            Path helper,
            Path directory,
            URI endpoint,
            String rootAccessKey,
            String rootSecretKey,
            Optional<LoopbackCertificate> certificate)
            throws IOException {
        requireNonNull(helper, "helper is null");
        requireNonNull(directory, "directory is null");
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(rootAccessKey, "rootAccessKey is null");
        requireNonNull(rootSecretKey, "rootSecretKey is null");
        requireNonNull(certificate, "certificate is null");
        Files.createDirectories(directory);
        List<String> connection = new ArrayList<>(List.of("--endpoint", endpoint.toString()));
        if (certificate.isPresent()) {
            Path caFile = directory.resolve("ca.pem");
            Files.writeString(caFile, certificate.get().certificatePem(), UTF_8);
            connection.addAll(List.of("--ca-file", caFile.toString()));
        }
        connection.addAll(List.of("--timeout", HELPER_TIMEOUT.toSeconds() + "s"));
        // ordered, so the command shown lists them the same way every time
        Map<String, String> rootCredentials = new LinkedHashMap<>();
        rootCredentials.put(ENV_ACCESS_KEY, rootAccessKey);
        rootCredentials.put(ENV_SECRET_KEY, rootSecretKey);
        MinioAdmin admin = new MinioAdmin(helper, directory, List.copyOf(connection), rootCredentials);
        admin.secrets.add(rootSecretKey);
        return admin;
    }

    /**
     * Adds the user {@code accessKey} and attaches the read-only policy of exactly {@code readableBuckets}
     * ({@link #readOnlyPolicy}), made the first time those buckets are asked for; with no buckets the
     * user gets no policy, so it may do nothing at all.
     */
    synchronized void addUser(String accessKey, String secretKey, List<String> readableBuckets) throws IOException {
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        requireNonNull(readableBuckets, "readableBuckets is null");
        // MinIO's own limits, checked here so the message can name the user without quoting the secret
        if (accessKey.length() < 3) {
            throw new IllegalArgumentException(
                    "MinIO needs an access key of at least 3 characters: '" + accessKey + "'");
        }
        if (secretKey.length() < 8) {
            throw new IllegalArgumentException(
                    "MinIO needs a secret key of at least 8 characters; the one for '" + accessKey + "' is shorter");
        }
        Set<String> buckets = new TreeSet<>(readableBuckets); // sorted: one policy per set, whatever the order
        for (String bucket : buckets) {
            if (!BUCKET.matcher(bucket).matches()) {
                throw new IllegalArgumentException("not a bucket name: '" + bucket + "'");
            }
        }
        secrets.add(secretKey);
        run(Map.of(ENV_USER_SECRET_KEY, secretKey), "add-user", accessKey);
        if (buckets.isEmpty()) {
            return;
        }
        // '_' is in no bucket name, so the name of the set is unambiguous
        String policy = "read-" + String.join("_", buckets);
        if (policies.add(policy)) {
            Path file = Files.createDirectories(directory.resolve("policies")).resolve(policy + ".json");
            Files.writeString(file, readOnlyPolicy(buckets), UTF_8);
            try {
                run(Map.of(), "create-policy", policy, file.toString());
            } catch (IOException | RuntimeException e) {
                policies.remove(policy);
                throw e;
            }
        }
        run(Map.of(), "attach-policy", policy, accessKey);
    }

    /**
     * An IAM policy that lets its holder read {@code buckets} and nothing else: list them and find their
     * region, and GET (and HEAD) their objects.
     */
    private static String readOnlyPolicy(Set<String> buckets) {
        String bucketArns = buckets.stream()
                .map(bucket -> "\"arn:aws:s3:::" + bucket + "\"")
                .collect(Collectors.joining(","));
        String objectArns = buckets.stream()
                .map(bucket -> "\"arn:aws:s3:::" + bucket + "/*\"")
                .collect(Collectors.joining(","));
        return "{\"Version\":\"2012-10-17\",\"Statement\":["
                + "{\"Effect\":\"Allow\",\"Action\":[\"s3:ListBucket\",\"s3:GetBucketLocation\"],\"Resource\":["
                + bucketArns
                + "]},"
                + "{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\"],\"Resource\":["
                + objectArns
                + "]}]}";
    }

    /**
     * Runs the helper with {@code args} after the connection's options, the root credentials and {@code environment}
     * in its environment, failing unless it exits 0.
     */
    private void run(Map<String, String> environment, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(helper.toString());
        command.addAll(connection);
        command.addAll(List.of(args));
        Map<String, String> set = new LinkedHashMap<>(rootCredentials);
        set.putAll(environment);
        Path output = directory.resolve("last-command.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        // only what this admin sets: a MINIO_ADMIN_* in the caller's shell could name another server's secrets
        builder.environment().keySet().removeIf(name -> name.startsWith(ENV_PREFIX));
        builder.environment().putAll(set);
        String shown = describe(set, command);
        Process process = builder.start();
        try {
            if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                throw new IOException(
                        shown + " did not finish in " + COMMAND_TIMEOUT + "; its output:\n" + redact(read(output)));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for " + shown);
        }
        if (process.exitValue() != 0) {
            throw new IOException(shown + " exited with " + process.exitValue() + ":\n" + redact(read(output)));
        }
    }

    /**
     * The command as a shell would run it, {@code `NAME=VALUE... rangefetch-minio-admin ARGS...`}, secrets redacted.
     */
    private String describe(Map<String, String> environment, List<String> command) {
        List<String> shown = new ArrayList<>();
        environment.forEach((name, value) -> shown.add(name + "=" + value));
        // the helper by its name alone: the rest of its path says nothing about the failure
        shown.add(HELPER);
        shown.addAll(command.subList(1, command.size()));
        return "`" + redact(String.join(" ", shown)) + "`";
    }

    /** {@code text} with every secret key this admin was given replaced, longest first. */
    private String redact(String text) {
        // longest first: a secret inside another must not leave the longer one's tail behind
        List<String> longestFirst = secrets.stream()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        String redacted = text;
        for (String secret : longestFirst) {
            redacted = redacted.replace(secret, REDACTED);
        }
        return redacted;
    }

    private static String read(Path output) {
        try {
            return Files.readString(output, UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}
