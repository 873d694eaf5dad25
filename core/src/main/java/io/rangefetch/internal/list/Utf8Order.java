package io.rangefetch.internal.list;

import java.util.Comparator;

/**
 * The order S3 lists keys in: UTF-8 binary order, which is the order of Unicode code points. Java's
 * {@link String#compareTo} compares UTF-16 chars instead, and the two disagree once a key holds a character
 * outside the Basic Multilingual Plane next to one at U+E000 or above, so listing code never uses it.
 */
final class Utf8Order {
    static final Comparator<String> ORDER = Utf8Order::compare;

    private Utf8Order() {}

    static int compare(String left, String right) {
        int i = 0;
        int j = 0;
        while (i < left.length() && j < right.length()) {
            int a = left.codePointAt(i);
            int b = right.codePointAt(j);
            if (a != b) {
                return Integer.compare(a, b);
            }
            i += Character.charCount(a);
            j += Character.charCount(b);
        }
        return Integer.compare(left.length() - i, right.length() - j);
    }

    /** The longest common prefix of two strings, never cutting a character in half. */
    static String commonPrefix(String left, String right) {
        int i = 0;
        while (i < left.length() && i < right.length()) {
            int a = left.codePointAt(i);
            if (a != right.codePointAt(i)) {
                break;
            }
            i += Character.charCount(a);
        }
        return left.substring(0, i);
    }

    /**
     * A string below {@code key} and as close under it as a short string gets, for {@code StartAfter}: the keys
     * that lie between the two are few (those starting with it), and every key at or above {@code key} lies
     * above it. The last character is lowered by one code point (skipping the surrogate range); a control
     * character, which some servers refuse in a query, is never made: the last character is dropped instead.
     * Answers {@code ""} for a one-character key that cannot be lowered.
     */
    static String justBefore(String key) {
        if (key.isEmpty()) {
            throw new IllegalArgumentException("Nothing lies before the empty key");
        }
        int last = key.codePointBefore(key.length());
        String head = key.substring(0, key.length() - Character.charCount(last));
        int lower = last - 1;
        if (lower >= Character.MIN_SURROGATE && lower <= Character.MAX_SURROGATE) {
            lower = Character.MIN_SURROGATE - 1;
        }
        if (lower < 0x20) {
            return head;
        }
        return head + new String(Character.toChars(lower));
    }
}
