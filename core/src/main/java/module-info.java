/**
 * Rangefetch core: a seekable, memory-bounded input stream over S3 objects.
 *
 * <p>Exported are the public API ({@code io.rangefetch}), the object client SPI ({@code io.rangefetch.client})
 * and the format policy SPI ({@code io.rangefetch.format}); the engine ({@code io.rangefetch.internal.*}) is
 * not, so code on the module path cannot reach it (the built-in format policies live there too: a factory makes
 * them itself). On the class path the module declaration is ignored and nothing changes.
 */
// The AWS SDK's jars are automatic modules (a name in the manifest, no declaration): javac warns of every
// requires of one, which is what the SDK offers; nothing to act on.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.rangefetch.core {
    exports io.rangefetch;
    exports io.rangefetch.client;
    exports io.rangefetch.format;

    // StreamFactory and the SDK object clients take the SDK's S3 clients, so their users need the module too. The
    // SDK's jars are automatic modules; reading one reads the others the S3 clients extend (sdk-core, aws-core).
    requires transitive software.amazon.awssdk.services.s3;
    // Used inside only: no exported signature names a type of these, so users need not read them.
    requires software.amazon.awssdk.core;
    // the per-request override that makes the SDK send each request once (AwsRetryStrategy, its RetryStrategy)
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.retries.api;
    requires software.amazon.awssdk.http;
    requires com.github.benmanes.caffeine;
    // Its jar names no module (neither a declaration nor a manifest entry): this is the name its file gives.
    requires concurrency.limits.core;
    requires org.slf4j;

    // Format policies of other modules (Parquet); the built-in ones are core's own and made directly.
    uses io.rangefetch.format.FormatPolicy;
}
