package io.rangefetch.benchmarks.micro;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectAddress;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectContent;
import io.rangefetch.client.ObjectMetadata;
import io.rangefetch.client.PreconditionFailedException;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.client.RangeNotSatisfiableException;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Serves one object from memory, whatever the key, answering ranges as S3 does (clipped at the end, 416 past
 * it, 412 on a stale {@code If-Match}). The benchmarks measure Rangefetch's in-memory paths, so this client is
 * as thin as a client can be: no request log and no faults, unlike core's test fake, which would also pull a
 * test artifact into this module's main scope. Thread-safe: immutable.
 */
final class MemoryObjectClient implements ObjectClient {
    private final byte[] data;
    private final ObjectMetadata metadata;

    MemoryObjectClient(byte[] data, String etag) {
        this.data = requireNonNull(data, "data is null");
        this.metadata = new ObjectMetadata(data.length, requireNonNull(etag, "etag is null"));
    }

    ObjectMetadata metadata() {
        return metadata;
    }

    @Override
    public ObjectContent get(RangeGetRequest request) throws IOException {
        if (request.ifMatch() != null && !request.ifMatch().equals(metadata.etag())) {
            throw new PreconditionFailedException("GET " + request.describe() + ": 412", null);
        }
        long start = request.isSuffix() ? Math.max(0, data.length - request.suffixLength()) : request.range().start();
        long end = request.isSuffix() ? data.length : Math.min(request.range().end(), data.length);
        if (start >= end) {
            throw new RangeNotSatisfiableException("GET " + request.describe() + ": 416", null);
        }
        ByteArrayInputStream body = new ByteArrayInputStream(data, (int) start, (int) (end - start));
        return new ObjectContent(body, new ByteRange(start, end), metadata);
    }

    @Override
    public ObjectMetadata head(ObjectAddress object) {
        return metadata;
    }
}
