package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ObjectClient;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

/**
 * The Rangefetch factory of the S3A file systems that read as the same identity with the same settings, shared in
 * this JVM through Rangefetch's registry ({@link SharedFactories}), with the registry its GETs go out through
 * ({@link StreamCallbacksS3Client}).
 *
 * <p><b>Why.</b> S3A makes one stream factory per file system, and Hadoop caches one file system per bucket and
 * user; with {@code fs.s3a.impl.disable.cache=true} every {@code FileSystem.get} makes a new one, and engines make one
 * per task and seldom close it. A Rangefetch factory per file system would be a cache budget and a pool of threads per
 * task; one per identity and settings is one budget and one pool, kept warm between queries by its linger.
 *
 * <p><b>Identity.</b> S3A signs with credentials from many sources: keys in {@code fs.s3a.*} (global, per bucket,
 * session tokens), Hadoop credential providers (a JCEKS file named by {@code hadoop.security.credential.provider.path}
 * or {@code fs.s3a.security.credential.provider.path}, which S3A folds into the former), the user's delegation tokens,
 * assumed roles and the AWS SDK's chain (environment, profile, container, instance). Two file systems share a factory
 * only when all of it is the same: the same Hadoop user (compared as Hadoop's own file system cache compares it: the
 * same login, with its tokens), every {@code fs.s3a.} setting (the SSE-C key among them), the credential provider path,
 * and every secret those providers hold, read through Hadoop's own provider API. What the SDK's chain resolves to is
 * the same for every file system of the JVM with those settings. So a file system holding another user's keys, in
 * {@code fs.s3a.*} or only in a JCEKS file, never reads through the factory of another, and its GETs never go out
 * through another's S3A callbacks. The settings and secrets are digested by the registry's key, never kept.
 *
 * <p>Thread-safe: both fields are.
 */
final class SharedS3AFactory implements AutoCloseable {
    private static final String SCOPE = "hadoop-s3a";
    /** Where Hadoop looks for credential providers (S3A's own path is folded into it). */
    private static final String CREDENTIAL_PROVIDER_PATH = CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH;

    private final StreamCallbacksS3Client requests = new StreamCallbacksS3Client();
    private final StreamFactory factory;

    private SharedS3AFactory(StreamConfig config) {
        // makes no thread until the first fetch: cheap enough under the registry's monitor
        this.factory = StreamFactory.create(ObjectClient.of(requests), config);
    }

    /**
     * Leases the factory of {@code conf}'s identity and settings (the configuration of a file system, its bucket's
     * options folded in) for the current Hadoop user; the lease ends when {@code owner} is collected if it is not
     * released first.
     */
    static SharedFactories.Lease<SharedS3AFactory> lease(Object owner, Configuration conf, StreamConfig config)
            throws IOException {
        requireNonNull(config, "config is null");
        return SharedFactories.lease(
                owner, key(conf), config.get(StreamConfig.FACTORY_LINGER), () -> new SharedS3AFactory(config));
    }

    /** What file systems share under: see the class note. */
    static SharedFactories.Key key(Configuration conf) throws IOException {
        requireNonNull(conf, "conf is null");
        Map<String, String> settings = new TreeMap<>();
        conf.getPropsWithPrefix("fs.s3a.").forEach((name, value) -> settings.put("fs.s3a." + name, value));
        settings.put(CREDENTIAL_PROVIDER_PATH, String.valueOf(conf.get(CREDENTIAL_PROVIDER_PATH)));
        List<CredentialProvider> providers = CredentialProviderFactory.getProviders(conf);
        for (int i = 0; i < providers.size(); i++) {
            CredentialProvider provider = providers.get(i);
            for (String alias : provider.getAliases()) {
                CredentialProvider.CredentialEntry entry = provider.getCredentialEntry(alias);
                char[] secret = entry == null ? null : entry.getCredential();
                settings.put("credential provider " + i + " " + alias, secret == null ? "" : new String(secret));
            }
        }
        return SharedFactories.Key.of(SCOPE, settings, UserGroupInformation.getCurrentUser());
    }

    StreamFactory factory() {
        return factory;
    }

    StreamCallbacksS3Client requests() {
        return requests;
    }

    /** Stops the factory's fetches and threads; the registry calls it after the last lease and the linger. */
    @Override
    public void close() {
        factory.close();
    }
}
