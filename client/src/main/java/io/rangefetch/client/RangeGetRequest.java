package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One closed-range GET: either an explicit {@link ByteRange} or the last {@code suffixLength} bytes of the
 * object (a suffix range, which also tells the total length without knowing it beforehand).
 *
 * @param ifMatch the ETag the object must still have, or {@code null} before the ETag is known
 */
public record RangeGetRequest(ObjectAddress object, ByteRange range, long suffixLength, String ifMatch) {

    public RangeGetRequest {
        requireNonNull(object, "object is null");
        if ((range == null) == (suffixLength <= 0)) {
            throw new IllegalArgumentException("Give either a range or a positive suffix length");
        }
    }

    public static RangeGetRequest of(ObjectAddress object, ByteRange range, String ifMatch) {
        return new RangeGetRequest(object, requireNonNull(range, "range is null"), 0, ifMatch);
    }

    public static RangeGetRequest suffix(ObjectAddress object, long suffixLength, String ifMatch) {
        return new RangeGetRequest(object, null, suffixLength, ifMatch);
    }

    public boolean isSuffix() {
        return range == null;
    }

    public Optional<String> expectedEtag() {
        return Optional.ofNullable(ifMatch);
    }

    /** The HTTP {@code Range} header value. */
    public String httpRange() {
        return range != null ? range.toHttpRange() : "bytes=-" + suffixLength;
    }

    /** Where the request points, for error messages. */
    public String describe() {
        return object + " range " + (range != null ? range.toString() : "last " + suffixLength + " bytes");
    }
}
