package io.rangefetch;

/**
 * The stream contract on the core stream opened with the object's length and ETag, as a caller with a listing or a
 * table manifest opens it: no request learns them, and a seek past the end fails at the seek.
 */
class SeekableS3InputStreamKnownVersionContractTest extends SeekableS3InputStreamContractTest {
    @Override
    OpenOptions options(OpenOptions version) {
        return version;
    }
}
