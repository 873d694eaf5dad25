package io.rangefetch.internal.identity;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rangefetch.client.SseCustomerKey;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * Tells the {@link AccessIdentity} of a stream: from the credentials it signs with (its own, else its factory's
 * client's) and its SSE-C key. One per factory; thread-safe.
 *
 * <p><b>What one principal is.</b> Credentials are told apart by what they resolve to, not by where they came from, so
 * every source (static keys, a Hadoop credential provider, delegation tokens, the SDK's default chain, instance or
 * container credentials, an assumed role, vended credentials) is handled alike:
 * <ul>
 *   <li>Two key pairs with the same access key id and secret are one principal, whichever provider gave them.</li>
 *   <li>A <b>rotation</b>: a provider that gave session credentials (a token with them) and now gives other session
 *       credentials is the same principal refreshed (an assumed role's, an instance's or a container's credentials
 *       expire and are renewed by the provider that made them, each time under a new access key id). Its streams keep
 *       the identity its first credentials had, so a refresh does not empty the cache. This is known only of the same
 *       provider instance: two providers of one role that resolved different sessions are two identities, which
 *       costs cache hits, never safety.</li>
 *   <li>Anything else is another principal: long-term keys that change under a provider (a credentials file
 *       rewritten), or session credentials after long-term ones.</li>
 *   <li>Unsigned requests (anonymous credentials) are one identity: what they read is public.</li>
 *   <li>A client that cannot say what it signs with ({@code ObjectClient.credentials()} empty) is an identity of its
 *       own, and so is a stream whose credentials fail to resolve: such a stream shares nothing, and its own request
 *       then fails as the client's resolution does.</li>
 * </ul>
 * The one case this cannot see: a single provider instance whose refreshed session credentials belong to another
 * principal (an instance profile's role replaced while the JVM runs). Credentials would have to be sent to STS to tell,
 * which a read path cannot afford; a JVM whose instance role is replaced should be restarted, as S3A's own connection
 * pools would keep the old role's connections anyway.
 *
 * <p>Resolving asks the provider, which caches and refreshes as it does for the SDK's own requests, at most once per
 * stream opened; the wait is bounded.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it and resolves each stream's identity with it.
 */
public final class CredentialsIdentities {
    private static final Logger LOG = LoggerFactory.getLogger(CredentialsIdentities.class);

    private final IdentityProvider<? extends AwsCredentialsIdentity> clientCredentials;
    private final AccessIdentity clientOwn;
    private final Duration resolveTimeout;
    // per provider instance (weak, compared by identity): the identity its first credentials had
    private final Cache<IdentityProvider<?>, Remembered> remembered =
            Caffeine.newBuilder().weakKeys().executor(Runnable::run).build();

    private record Remembered(AccessIdentity identity, boolean session, Object lastResolved, byte[] lastDigest) {}

    /**
     * @param clientCredentials what the factory's client signs with when a stream names nothing, if it can tell
     * @param resolveTimeout the longest an open waits for a provider to resolve; zero waits without limit
     */
    public CredentialsIdentities(
            Optional<IdentityProvider<? extends AwsCredentialsIdentity>> clientCredentials, Duration resolveTimeout) {
        this.clientCredentials =
                requireNonNull(clientCredentials, "clientCredentials is null").orElse(null);
        this.clientOwn = this.clientCredentials == null ? AccessIdentity.unique() : null;
        this.resolveTimeout = requireNonNull(resolveTimeout, "resolveTimeout is null");
    }

    /**
     * The identity of a stream signing with {@code credentials} ({@code null}: the client's own) and carrying
     * {@code sseKey} ({@code null}: none).
     */
    public AccessIdentity of(IdentityProvider<? extends AwsCredentialsIdentity> credentials, SseCustomerKey sseKey) {
        AccessIdentity identity = credentialsIdentity(credentials);
        return sseKey == null ? identity : identity.withSseKey(Fingerprints.sseKey(sseKey.base64Key()));
    }

    private AccessIdentity credentialsIdentity(IdentityProvider<? extends AwsCredentialsIdentity> credentials) {
        IdentityProvider<? extends AwsCredentialsIdentity> provider =
                credentials != null ? credentials : clientCredentials;
        if (provider == null) {
            return clientOwn;
        }
        AwsCredentialsIdentity resolved = resolve(provider);
        if (resolved == null) {
            return AccessIdentity.unique();
        }
        if (resolved.accessKeyId() == null || resolved.secretAccessKey() == null) {
            return AccessIdentity.ofCredentials(Fingerprints.anonymous());
        }
        Remembered now = remembered.asMap().compute(provider, (key, before) -> remember(before, resolved));
        return now.identity();
    }

    /** The rule of the class note, for one provider: what it resolved before, and what it resolves now. */
    private static Remembered remember(Remembered before, AwsCredentialsIdentity resolved) {
        if (before != null && before.lastResolved() == resolved) {
            return before; // the provider's cached credentials, as last time: no digest to take
        }
        byte[] digest = Fingerprints.credentials(resolved.accessKeyId(), resolved.secretAccessKey());
        boolean session = resolved instanceof AwsSessionCredentialsIdentity;
        if (before != null && (Arrays.equals(before.lastDigest(), digest) || (before.session() && session))) {
            return new Remembered(before.identity(), session, resolved, digest);
        }
        return new Remembered(AccessIdentity.ofCredentials(digest), session, resolved, digest);
    }

    /** The timeout in nanoseconds, a very long one (0s: "without limit") saturated rather than overflowed. */
    private long timeoutNanos() {
        if (resolveTimeout.isZero() || resolveTimeout.compareTo(Duration.ofDays(365)) > 0) {
            return Long.MAX_VALUE;
        }
        return resolveTimeout.toNanos();
    }

    private AwsCredentialsIdentity resolve(IdentityProvider<? extends AwsCredentialsIdentity> provider) {
        try {
            return provider.resolveIdentity().get(timeoutNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the stream's first read finds the flag and stops there
            return null;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // the provider's failure names no secret (it failed to get one); the request fails again and says why
            LOG.debug("Credentials did not resolve when a stream opened; it shares nothing with other streams", e);
            return null;
        }
    }
}
