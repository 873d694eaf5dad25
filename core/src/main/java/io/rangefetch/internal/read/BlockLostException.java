package io.rangefetch.internal.read;

import java.io.IOException;

/**
 * A block this read meant to share failed or was cancelled by whoever fetched it (another stream's prefetch,
 * say). Not the reader's failure: the read is planned again.
 */
final class BlockLostException extends IOException {
    private static final long serialVersionUID = 1L;

    BlockLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
