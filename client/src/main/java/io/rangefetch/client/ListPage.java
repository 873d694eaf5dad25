package io.rangefetch.client;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One ListObjectsV2 answer.
 *
 * @param objects the keys of the page, in the order the server sent them (UTF-8 binary order on S3)
 * @param commonPrefixes the prefixes keys were rolled up into (empty without a delimiter)
 * @param truncated whether more keys follow ({@code IsTruncated})
 * @param nextContinuationToken where the next page starts; {@code null} when not truncated
 */
public record ListPage(
        List<ListEntry> objects, List<String> commonPrefixes, boolean truncated, String nextContinuationToken) {

    public ListPage {
        objects = List.copyOf(requireNonNull(objects, "objects is null"));
        commonPrefixes = List.copyOf(requireNonNull(commonPrefixes, "commonPrefixes is null"));
        if (truncated && nextContinuationToken == null) {
            throw new IllegalArgumentException("A truncated page needs a continuation token");
        }
    }
}
