package io.rangefetch.internal.identity;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.SseCustomerKey;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.ResolveIdentityRequest;

/**
 * What one identity is, source by source: the rule {@link CredentialsIdentities} keeps (one principal's key pair,
 * however it is provided; a refreshed session of the same provider; anything else another), the SSE-C key as part of
 * it, and what a client that cannot tell, or credentials that do not resolve, are (an identity of their own).
 */
class CredentialsIdentitiesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final CredentialsIdentities identities = new CredentialsIdentities(Optional.empty(), TIMEOUT);

    private static AwsCredentialsProvider keys(String accessKeyId, String secret) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secret));
    }

    /** A provider whose credentials a test replaces, as a refreshing provider replaces an expiring session. */
    private static final class Refreshing implements AwsCredentialsProvider {
        volatile AwsCredentials now;

        Refreshing(AwsCredentials first) {
            this.now = first;
        }

        @Override
        public AwsCredentials resolveCredentials() {
            return now;
        }
    }

    @Test
    void theSameKeyPairIsOnePrincipalWhicheverProviderGivesIt() {
        AccessIdentity first = identities.of(keys("AKID1", "secret-1"), null);
        assertThat(identities.of(keys("AKID1", "secret-1"), null)).isEqualTo(first);
        assertThat(identities.of(keys("AKID1", "secret-2"), null))
                .as("another secret")
                .isNotEqualTo(first);
        assertThat(identities.of(keys("AKID2", "secret-1"), null))
                .as("another key id")
                .isNotEqualTo(first);
    }

    @Test
    void aRefreshedSessionOfOneProviderKeepsItsIdentityAndOtherChangesDoNot() {
        Refreshing role = new Refreshing(AwsSessionCredentials.create("ASIA1", "session-secret-1", "token-1"));
        AccessIdentity first = identities.of(role, null);
        role.now = AwsSessionCredentials.create("ASIA2", "session-secret-2", "token-2");
        assertThat(identities.of(role, null))
                .as("the provider renewed its session")
                .isEqualTo(first);
        assertThat(identities.of(StaticCredentialsProvider.create(role.now), null))
                .as("another provider with the renewed session: not known to be the same principal")
                .isNotEqualTo(first);

        Refreshing file = new Refreshing(AwsBasicCredentials.create("AKIDA", "long-term-a"));
        AccessIdentity longTerm = identities.of(file, null);
        file.now = AwsBasicCredentials.create("AKIDB", "long-term-b");
        assertThat(identities.of(file, null))
                .as("long-term keys replaced: another principal")
                .isNotEqualTo(longTerm);
        file.now = AwsSessionCredentials.create("ASIAC", "session-c", "token-c");
        AccessIdentity afterLongTerm = identities.of(file, null);
        assertThat(afterLongTerm).as("a session after long-term keys").isNotEqualTo(longTerm);
        file.now = AwsSessionCredentials.create("ASIAD", "session-d", "token-d");
        assertThat(identities.of(file, null))
                .as("then renewed: the same session source")
                .isEqualTo(afterLongTerm);
    }

    @Test
    void aSessionTokenIsNotWhatTellsPrincipalsApart() {
        AccessIdentity one = identities.of(
                StaticCredentialsProvider.create(AwsSessionCredentials.create("ASIA1", "s", "token-1")), null);
        AccessIdentity other = identities.of(
                StaticCredentialsProvider.create(AwsSessionCredentials.create("ASIA1", "s", "token-2")), null);
        assertThat(other).isEqualTo(one);
    }

    @Test
    void anSseCustomerKeyIsPartOfTheIdentity() {
        SseCustomerKey key = SseCustomerKey.ofBase64(Base64.getEncoder().encodeToString(new byte[32]));
        byte[] otherBytes = new byte[32];
        otherBytes[0] = 1;
        SseCustomerKey other = SseCustomerKey.ofBase64(Base64.getEncoder().encodeToString(otherBytes));
        AwsCredentialsProvider user = keys("AKID1", "secret-1");
        AccessIdentity plain = identities.of(user, null);
        AccessIdentity withKey = identities.of(user, key);
        assertThat(withKey).isNotEqualTo(plain).isEqualTo(identities.of(user, key));
        assertThat(identities.of(user, other)).isNotEqualTo(withKey);
        assertThat(withKey.sameCredentials(plain)).isTrue();
        assertThat(withKey.hasSseKey()).isTrue();
        assertThat(withKey.toString()).contains("SSE-C").doesNotContain(key.base64Key());
    }

    @Test
    void unsignedRequestsAreOneIdentityAndAClientThatCannotTellIsItsOwn() {
        AccessIdentity anonymous = identities.of(AnonymousCredentialsProvider.create(), null);
        assertThat(identities.of(AnonymousCredentialsProvider.create(), null)).isEqualTo(anonymous);
        CredentialsIdentities other = new CredentialsIdentities(Optional.empty(), TIMEOUT);
        assertThat(identities.of(null, null))
                .as("the client's own, when it cannot say what it signs with")
                .isEqualTo(identities.of(null, null))
                .isNotEqualTo(other.of(null, null))
                .isNotEqualTo(anonymous);
        CredentialsIdentities told = new CredentialsIdentities(Optional.of(keys("AKID1", "secret-1")), TIMEOUT);
        assertThat(told.of(null, null)).isEqualTo(told.of(keys("AKID1", "secret-1"), null));
    }

    @Test
    void credentialsThatDoNotResolveShareNothing() {
        AwsCredentialsProvider failing = () -> {
            throw new IllegalStateException("no credentials");
        };
        IdentityProvider<AwsCredentialsIdentity> never = new IdentityProvider<>() {
            @Override
            public Class<AwsCredentialsIdentity> identityType() {
                return AwsCredentialsIdentity.class;
            }

            @Override
            public CompletableFuture<AwsCredentialsIdentity> resolveIdentity(ResolveIdentityRequest request) {
                return new CompletableFuture<>(); // never answers: the open must not wait for ever
            }
        };
        CredentialsIdentities bounded = new CredentialsIdentities(Optional.empty(), Duration.ofMillis(1));
        assertThat(identities.of(failing, null)).isNotEqualTo(identities.of(failing, null));
        assertThat(bounded.of(never, null)).isNotEqualTo(bounded.of(never, null));
    }

    @Test
    void anInterruptedResolutionSharesNothingAndKeepsTheFlag() {
        IdentityProvider<AwsCredentialsIdentity> slow = new IdentityProvider<>() {
            @Override
            public Class<AwsCredentialsIdentity> identityType() {
                return AwsCredentialsIdentity.class;
            }

            @Override
            public CompletableFuture<AwsCredentialsIdentity> resolveIdentity(ResolveIdentityRequest request) {
                return new CompletableFuture<>();
            }
        };
        Thread.currentThread().interrupt();
        try {
            AccessIdentity identity = identities.of(slow, null);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(identity).isNotEqualTo(identities.of(keys("AKID1", "secret-1"), null));
        } finally {
            Thread.interrupted();
        }
    }
}
