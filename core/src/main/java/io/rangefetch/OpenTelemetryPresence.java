package io.rangefetch;

/**
 * Whether the OpenTelemetry API is on the class path, asked without loading any of it: {@link
 * RangefetchOpenTelemetry} names its types, so it is touched only when they are there.
 */
final class OpenTelemetryPresence {
    private static final boolean PRESENT = present();

    private OpenTelemetryPresence() {}

    /** As a factory opens: registers the metrics with the global OpenTelemetry, if there is one and it is set. */
    static void factoryOpened() {
        if (PRESENT) {
            RangefetchOpenTelemetry.registerGloballyIfSet();
        }
    }

    private static boolean present() {
        try {
            Class.forName(
                    "io.opentelemetry.api.GlobalOpenTelemetry", false, OpenTelemetryPresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
