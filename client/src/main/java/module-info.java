/**
 * Rangefetch's object client: the SPI the engine sends every request through ({@code ObjectClient}: a ranged GET
 * with {@code If-Match}, HEAD, ListObjectsV2), its values and exceptions, and the AWS SDK implementations. It knows
 * nothing of the layers above it (caching, planning, the stream): the module boundary keeps it so, since this
 * module depends on none of Rangefetch's. Core requires it transitively, so a user of core reads it too.
 */
// The AWS SDK's jars are automatic modules (a name in the manifest, no declaration): javac warns of every
// requires of one, which is what the SDK offers; nothing to act on.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.rangefetch.client {
    exports io.rangefetch.client;

    // The SDK object clients take the SDK's S3 clients and hand back its responses, so their users need it too.
    requires transitive software.amazon.awssdk.services.s3;
    // An address names the credentials its requests are signed with (the SDK's identity provider).
    requires transitive software.amazon.awssdk.identity.spi;
    // Used inside only: the per-request override that makes the SDK send each request once, aborting bodies.
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.retries.api;
    requires software.amazon.awssdk.http;
    requires org.slf4j;
}
