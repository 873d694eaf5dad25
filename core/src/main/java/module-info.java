/**
 * Rangefetch core: a seekable, memory-bounded input stream over S3 objects.
 *
 * <p>Exported are the public API ({@code io.rangefetch}) and the format policy SPI ({@code io.rangefetch.format});
 * the object client SPI ({@code io.rangefetch.client}) is a module of its own, which core requires transitively,
 * so whoever reads core reads it too. The engine ({@code io.rangefetch.internal.*}) is not exported, so code on the
 * module path cannot reach it (the built-in format policies live there too: a factory makes them itself). On the
 * class path the module declaration is ignored and nothing changes.
 */
// The AWS SDK's jars are automatic modules (a name in the manifest, no declaration): javac warns of every
// requires of one, which is what the SDK offers; nothing to act on.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.rangefetch.core {
    exports io.rangefetch;
    exports io.rangefetch.format;

    // StreamFactory takes an ObjectClient, and the API names the client's values (ObjectAddress, SseCustomerKey ...).
    requires transitive io.rangefetch.client;
    // StreamFactory takes the SDK's S3 clients, so its users need the module too. The SDK's jars are automatic
    // modules; reading one reads the others the S3 clients extend (sdk-core, aws-core).
    requires transitive software.amazon.awssdk.services.s3;
    // Used inside only (the body watchdog aborts a stalled body): no exported signature names a type of it.
    requires software.amazon.awssdk.http;
    requires com.github.benmanes.caffeine;
    // Its jar names no module (neither a declaration nor a manifest entry): this is the name its file gives.
    requires concurrency.limits.core;
    requires org.slf4j;
    // Flight Recorder events (io.rangefetch.internal.events); JFR makes their package visible to itself.
    requires jdk.jfr;
    // Optional: RangefetchOpenTelemetry registers the metrics when the OpenTelemetry API is there.
    requires static io.opentelemetry.api;

    // Format policies of other modules (Parquet); the built-in ones are core's own and made directly.
    uses io.rangefetch.format.FormatPolicy;
}
