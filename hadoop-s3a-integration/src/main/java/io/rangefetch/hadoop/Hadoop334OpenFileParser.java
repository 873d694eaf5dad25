package io.rangefetch.hadoop;

import java.io.FileNotFoundException;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AInputPolicy;
import org.apache.hadoop.fs.s3a.S3ALocatedFileStatus;

/**
 * What Hadoop 3.3.4's S3A reads from an {@code openFile} (it has no {@code OpenFileSupport} and no
 * {@code fs.option.openfile.*} keys): the read policy from {@code fs.s3a.experimental.input.fadvise} (else the file
 * system's), {@code fs.s3a.readahead.range} accepted and unused, any other mandatory key refused, and the caller's
 * status, with its ETag when it is S3A's own. As 3.3.4, a status must be for the same path.
 */
final class Hadoop334OpenFileParser implements OpenFileParser {
    private static final String FADVISE = "fs.s3a.experimental.input.fadvise";
    private static final Set<String> KNOWN_KEYS = Set.of(FADVISE, "fs.s3a.readahead.range");

    private final S3AFileSystem fileSystem;
    private final String username;

    Hadoop334OpenFileParser(S3AFileSystem fileSystem) {
        this.fileSystem = fileSystem;
        this.username = fileSystem.getUsername();
    }

    @Override
    public Request simple(int bufferSize) {
        return new Request(null, fileSystem.getInputPolicy(), fileSystem.getChangeDetectionPolicy());
    }

    @Override
    public Request prepare(Path path, OpenFileParameters parameters, long blockSize) throws FileNotFoundException {
        for (String key : parameters.getMandatoryKeys()) {
            if (!KNOWN_KEYS.contains(key)) {
                throw new IllegalArgumentException("Unknown mandatory key \"" + key + "\" for " + path
                        + " (Hadoop 3.3.4's S3A knows " + KNOWN_KEYS + ")");
            }
        }
        Configuration options = parameters.getOptions();
        S3AInputPolicy policy = fileSystem.getInputPolicy();
        String asked = options == null ? null : options.getTrimmed(FADVISE);
        if (asked != null) {
            policy = policy(asked, policy);
        }
        return new Request(
                status(path, parameters.getStatus(), blockSize), policy, fileSystem.getChangeDetectionPolicy());
    }

    private S3AFileStatus status(Path path, FileStatus given, long blockSize) throws FileNotFoundException {
        if (given == null) {
            return null;
        }
        if (!path.equals(given.getPath())) {
            throw new IllegalArgumentException("FileStatus parameter is not for the path " + path + ": " + given);
        }
        if (given.isDirectory()) {
            throw new FileNotFoundException("Can't open " + path + " because it is a directory");
        }
        if (given instanceof S3AFileStatus s3a) {
            return s3a;
        }
        if (given instanceof S3ALocatedFileStatus located) {
            return located.toS3AFileStatus();
        }
        // another file system's status: its length only; the ETag comes from the first answer, as S3A's own does
        return new S3AFileStatus(given.getLen(), given.getModificationTime(), path, blockSize, username, null, null);
    }

    /** A policy name as 3.3.4 takes it ({@code normal}, {@code random}, {@code sequential}); others: the default. */
    private static S3AInputPolicy policy(String name, S3AInputPolicy fallback) {
        String wanted = name.toLowerCase(Locale.ROOT);
        for (S3AInputPolicy policy : S3AInputPolicy.values()) {
            if (policy.name().toLowerCase(Locale.ROOT).equals(wanted)) {
                return policy;
            }
        }
        return fallback;
    }
}
