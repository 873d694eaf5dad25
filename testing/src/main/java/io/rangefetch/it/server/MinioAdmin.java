package io.rangefetch.it.server;

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
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Users and policies on one running MinIO, through MinIO's own client {@code mc}: MinIO's admin API is
 * signed and encrypted in ways no SDK here speaks, and {@code mc} is what its documentation drives it
 * with.
 *
 * <p>{@code mc} gets a config directory of its own ({@code --config-dir}), so neither the user's
 * {@code ~/.mc} nor another server's alias is read or written, and an alias for this server made once.
 * For a TLS server the certificate goes into that directory's {@code certs/CAs/}, where {@code mc} looks
 * for extra roots: {@code mc} checks the server's certificate as it would any other, with no {@code
 * --insecure}.
 *
 * <p>Each command is a child process with a timeout; its output goes to a file (no pipe to drain, no
 * reader thread) and is quoted when the command fails, with every secret key this class was given
 * replaced by {@value #REDACTED}, in the output as in the command line. Thread-safe: commands run one
 * at a time.
 */
final class MinioAdmin {

    static final String REDACTED = "<redacted>";

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final String ALIAS = "rangefetch";
    // what S3 and MinIO allow in a bucket name; anything else could change a policy's JSON or ARN
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]*");

    private final Path mc;
    private final Path configDir;
    private final Set<String> secrets = new HashSet<>();
    private final Set<String> policies = new HashSet<>();

    private MinioAdmin(Path mc, Path configDir) {
        this.mc = mc;
        this.configDir = configDir;
    }

    /**
     * Makes {@code configDir} (which the caller deletes) and in it an alias for the server at {@code
     * endpoint} with the root credentials; {@code certificate} is the one to trust for {@code https}.
     */
    static MinioAdmin connect(
            Path mc,
            Path configDir,
            URI endpoint,
            String rootAccessKey,
            String rootSecretKey,
            Optional<LoopbackCertificate> certificate)
            throws IOException {
        requireNonNull(mc, "mc is null");
        requireNonNull(configDir, "configDir is null");
        requireNonNull(endpoint, "endpoint is null");
        requireNonNull(rootAccessKey, "rootAccessKey is null");
        requireNonNull(rootSecretKey, "rootSecretKey is null");
        requireNonNull(certificate, "certificate is null");
        Files.createDirectories(configDir);
        if (certificate.isPresent()) {
            Path cas = Files.createDirectories(configDir.resolve("certs").resolve("CAs"));
            Files.writeString(cas.resolve("public.crt"), certificate.get().certificatePem(), UTF_8);
        }
        MinioAdmin admin = new MinioAdmin(mc, configDir);
        admin.secrets.add(rootSecretKey);
        admin.run("alias", "set", ALIAS, endpoint.toString(), rootAccessKey, rootSecretKey);
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
        run("admin", "user", "add", ALIAS, accessKey, secretKey);
        if (buckets.isEmpty()) {
            return;
        }
        // '_' is in no bucket name, so the name of the set is unambiguous
        String policy = "read-" + String.join("_", buckets);
        if (policies.add(policy)) {
            Path file = Files.createDirectories(configDir.resolve("policies")).resolve(policy + ".json");
            Files.writeString(file, readOnlyPolicy(buckets), UTF_8);
            try {
                run("admin", "policy", "create", ALIAS, policy, file.toString());
            } catch (IOException | RuntimeException e) {
                policies.remove(policy);
                throw e;
            }
        }
        run("admin", "policy", "attach", ALIAS, policy, "--user", accessKey);
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

    /** Runs {@code mc --config-dir DIR ARGS...}, failing unless it exits 0. */
    private void run(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                mc.toString(), "--config-dir", configDir.toString(), "--no-color", "--disable-pager", "--quiet"));
        command.addAll(List.of(args));
        Path output = configDir.resolve("last-command.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        // MC_HOST_<alias> and friends in the caller's shell would override the alias set here
        builder.environment().keySet().removeIf(name -> name.startsWith("MC_"));
        Process process = builder.start();
        try {
            if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                throw new IOException(describe(command) + " did not finish in " + COMMAND_TIMEOUT + "; its output:\n"
                        + redact(read(output)));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for " + describe(command));
        }
        if (process.exitValue() != 0) {
            throw new IOException(
                    describe(command) + " exited with " + process.exitValue() + ":\n" + redact(read(output)));
        }
    }

    private String describe(List<String> command) {
        // mc by its file name alone: the rest of its path says nothing about the failure
        List<String> shown = new ArrayList<>(command);
        shown.set(0, "mc");
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
