package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ListPage;
import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import io.rangefetch.client.S3Location;
import io.rangefetch.client.SseCustomerKey;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * An in-memory {@link ObjectClient} that answers as S3 does: closed ranges clipped at the object's end, 416 for
 * a range that starts at or past it (and for any range of an empty object), suffix ranges, {@code If-Match}
 * with 412, quoted MD5 ETags, 404 for a missing key; ListObjectsV2 in UTF-8 binary key order with prefix,
 * delimiter and common prefixes, {@code StartAfter} (ignored when a continuation token is given), max-keys capped
 * at 1,000 and {@code IsTruncated}. A bucket named like an S3 Express directory bucket ({@code --x-s3} at the end)
 * lists as those do: unsorted, no {@code StartAfter} (400), only prefixes ending in {@code /}. It logs every
 * request and can inject faults. Thread-safe. For unit tests only.
 *
 * <p><b>Who asks.</b> By default every request is allowed, as for an account's root. Once {@link #addUser} has
 * registered a user, requests are signed as S3 signs them: with the credentials the address names
 * ({@code ObjectAddress.credentials()}), else the client's own ({@link #signWith}); they are resolved on every
 * request, as the SDK does. An unknown access key id, a wrong secret or a session token that does not match is 403;
 * a user may read (GET, HEAD, LIST) the buckets it was given only, else 403. Unsigned requests (no credentials) are
 * 403 too. Each logged request names the access key id it was signed with.
 *
 * <p><b>SSE-C.</b> An object stored with {@link #putEncrypted} needs its key on every GET and HEAD: none is 400, a
 * wrong one 403, as S3 answers; its ETag is not its bytes' MD5. A key sent for an object stored without one is 400.
 */
public final class InMemoryObjectClient implements ObjectClient {
    private final Map<String, Stored> objects = new ConcurrentHashMap<>();
    private final List<Request> log = new CopyOnWriteArrayList<>();
    private final List<ListRequest> listLog = new CopyOnWriteArrayList<>();
    private volatile boolean ignoreStartAfter;
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<BodyHold> holds = new CopyOnWriteArrayList<>();
    private final List<BodyFault> bodyFaults = new CopyOnWriteArrayList<>();
    // the SSE-C key each request carried (null for none), in the order of the log
    private final List<SseCustomerKey> sseKeys = new CopyOnWriteArrayList<>();
    // access key id -> the user; empty: every request is allowed
    private final Map<String, User> users = new ConcurrentHashMap<>();
    private volatile IdentityProvider<? extends AwsCredentialsIdentity> ownCredentials;

    /** A user requests may be signed as: its secret, its session token if any, the buckets it may read. */
    private record User(String secret, String sessionToken, Set<String> buckets) {}

    /**
     * Registers a user who may read {@code buckets} (GET, HEAD, LIST) and nothing else; {@code sessionToken} is the
     * token its session credentials carry, or {@code null} for long-term keys. From the first user on, every request
     * must be signed (see the class note).
     */
    public void addUser(String accessKeyId, String secret, String sessionToken, Set<String> buckets) {
        requireNonNull(accessKeyId, "accessKeyId is null");
        requireNonNull(secret, "secret is null");
        users.put(accessKeyId, new User(secret, sessionToken, Set.copyOf(buckets)));
    }

    /** Removes a user: its credentials are refused from now on (an expired session, a deleted key). */
    public void removeUser(String accessKeyId) {
        users.remove(accessKeyId);
    }

    /**
     * The credentials requests are signed with when their address names none, which {@link #credentials()} answers
     * as the SDK-backed clients answer their client's provider.
     */
    public void signWith(IdentityProvider<? extends AwsCredentialsIdentity> credentials) {
        this.ownCredentials = requireNonNull(credentials, "credentials is null");
    }

    @Override
    public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
        return Optional.ofNullable(ownCredentials);
    }

    /** The SSE-C key each GET and HEAD carried, in order; an entry is {@code null} for a request without one. */
    public List<SseCustomerKey> sseKeysSent() {
        return new ArrayList<>(sseKeys);
    }

    /** Breaks the bodies of matching GETs: the answer's headers are right, its bytes stop early. */
    public static final class BodyFault {
        private final Predicate<Request> matching;
        private final long afterBytes;
        private final boolean reset;
        private final java.util.concurrent.atomic.AtomicInteger left;

        private BodyFault(Predicate<Request> matching, long afterBytes, boolean reset, int times) {
            this.matching = matching;
            this.afterBytes = afterBytes;
            this.reset = reset;
            this.left = new java.util.concurrent.atomic.AtomicInteger(times);
        }

        InputStream wrap(Request request, InputStream body) {
            if (!matching.test(request) || left.getAndDecrement() <= 0) {
                return body;
            }
            return new java.io.FilterInputStream(body) {
                private long passed;

                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    if (passed >= afterBytes) {
                        if (reset) {
                            throw new IOException("Connection reset (injected after " + afterBytes + " body bytes)");
                        }
                        return -1; // the body ends early, its headers notwithstanding
                    }
                    int read = super.read(buffer, offset, (int) Math.min(length, afterBytes - passed));
                    if (read > 0) {
                        passed += read;
                    }
                    return read;
                }

                @Override
                public long skip(long count) throws IOException {
                    byte[] scratch = new byte[(int) Math.min(count, 8192)];
                    int read = read(scratch, 0, scratch.length);
                    return Math.max(0, read);
                }
            };
        }
    }

    /**
     * The first {@code times} GETs {@code matching} accepts answer with the right headers, and their bodies fail
     * after {@code afterBytes} bytes: with a reset ({@code reset}) or by ending early (a truncated body).
     */
    public BodyFault breakBodies(Predicate<Request> matching, long afterBytes, boolean reset, int times) {
        BodyFault fault = new BodyFault(matching, afterBytes, reset, times);
        bodyFaults.add(fault);
        return fault;
    }

    /**
     * One request as it reached the client.
     *
     * @param signedBy the access key id it was signed with; {@code null} when unsigned or when no user is registered
     */
    /** One request as the server saw it; {@code sseCustomerKey} is the SSE-C key it carried, or {@code null}. */
    public record Request(
            String method,
            String bucket,
            String key,
            String range,
            String ifMatch,
            String signedBy,
            SseCustomerKey sseCustomerKey) {
        public boolean isGet() {
            return method.equals("GET");
        }

        /** The closed range this GET asked for (explicit ranges only). */
        public ByteRange byteRange() {
            String[] bounds = range.substring("bytes=".length()).split("-");
            return new ByteRange(Long.parseLong(bounds[0]), Long.parseLong(bounds[1]) + 1);
        }
    }

    /** Something a test wants to happen when a request matches. */
    @FunctionalInterface
    public interface Fault {
        /** Called before the request is answered; may block, throw, or change the store. */
        void apply(Request request) throws IOException;
    }

    /** @param sseKey the SSE-C key the object was written with, or {@code null} */
    private record Stored(byte[] data, String etag, Instant lastModified, SseCustomerKey sseKey) {}

    /** Stores (or overwrites) an object; returns its ETag. */
    public String put(String bucket, String key, byte[] data) {
        Stored stored = new Stored(data.clone(), etagOf(data), Instant.now(), null);
        objects.put(bucket + "/" + requireNonNull(key, "key is null"), stored);
        return stored.etag();
    }

    /**
     * Stores (or overwrites) an object encrypted with an SSE-C key: reading it takes the key. Returns its ETag, which
     * (as S3's for SSE-C objects) is not the MD5 of its bytes.
     */
    public String putEncrypted(String bucket, String key, byte[] data, SseCustomerKey sseKey) {
        requireNonNull(sseKey, "sseKey is null");
        byte[] salted = (sseKey.base64KeyMd5() + HexFormat.of().formatHex(data)).getBytes(StandardCharsets.UTF_8);
        Stored stored = new Stored(data.clone(), etagOf(salted), Instant.now(), sseKey);
        objects.put(bucket + "/" + requireNonNull(key, "key is null"), stored);
        return stored.etag();
    }

    public void delete(String bucket, String key) {
        objects.remove(bucket + "/" + key);
    }

    public String etag(String bucket, String key) {
        return objects.get(bucket + "/" + key).etag();
    }

    /** Adds a fault applied to every request until removed. */
    public Fault addFault(Fault fault) {
        faults.add(fault);
        return fault;
    }

    public void removeFault(Fault fault) {
        faults.remove(fault);
    }

    /** A fault that throws {@code failure} for the requests {@code matching} accepts. */
    public static Fault failWhen(Predicate<Request> matching, IOException failure) {
        return request -> {
            if (matching.test(request)) {
                throw failure;
            }
        };
    }

    /**
     * Holds the bodies of the GETs {@code matching} accepts: their headers answer at once, but their first body
     * byte waits until {@link BodyHold#release()}, or fails if the body is closed first (as an abort does),
     * the way a slow network looks to a reader blocked on a socket.
     */
    public BodyHold holdBodies(Predicate<Request> matching) {
        BodyHold hold = new BodyHold(matching);
        holds.add(hold);
        return hold;
    }

    /** Answers ListObjectsV2 as if {@code StartAfter} were not given, as some S3-compatible servers do. */
    public void ignoreStartAfter(boolean ignore) {
        this.ignoreStartAfter = ignore;
    }

    /** Every ListObjectsV2 request, in order. */
    public List<ListRequest> listRequests() {
        return new ArrayList<>(listLog);
    }

    public List<Request> requests() {
        return new ArrayList<>(log);
    }

    public List<Request> gets() {
        return log.stream().filter(Request::isGet).toList();
    }

    public long count(String method) {
        return log.stream().filter(request -> request.method().equals(method)).count();
    }

    public void clearLog() {
        log.clear();
        listLog.clear();
    }

    @Override
    public ObjectContent get(RangeGetRequest get) throws IOException {
        ObjectAddress object = get.object();
        String signedBy = signer(object.credentials());
        Request request = new Request(
                "GET",
                object.bucket(),
                object.key(),
                get.httpRange(),
                get.ifMatch(),
                signedBy,
                object.sseCustomerKey());
        log.add(request);
        sseKeys.add(object.sseCustomerKey());
        for (Fault fault : faults) {
            fault.apply(request);
        }
        authorize(object.credentials(), object.bucket(), "GET " + get.describe());
        Stored stored = find(object, "GET " + get.describe());
        checkSseKey(stored, object, "GET " + get.describe());
        if (get.ifMatch() != null && !get.ifMatch().equals(stored.etag())) {
            throw new HttpStatusException("GET " + get.describe() + ": 412 Precondition Failed", 412, null);
        }
        long length = stored.data().length;
        ByteRange range;
        if (get.isSuffix()) {
            if (length == 0) {
                throw new HttpStatusException("GET " + get.describe() + ": 416", 416, null);
            }
            range = new ByteRange(Math.max(0, length - get.suffixLength()), length);
        } else {
            if (get.range().start() >= length) {
                throw new HttpStatusException("GET " + get.describe() + ": 416", 416, null);
            }
            range = new ByteRange(get.range().start(), Math.min(get.range().end(), length));
        }
        InputStream body = new ByteArrayInputStream(stored.data(), (int) range.start(), (int) range.length());
        for (BodyFault fault : bodyFaults) {
            body = fault.wrap(request, body);
        }
        for (BodyHold hold : holds) {
            body = hold.wrap(request, body);
        }
        return new ObjectContent(body, range, new ObjectMetadata(length, stored.etag()));
    }

    @Override
    public ObjectMetadata head(ObjectAddress object) throws IOException {
        Request request = new Request(
                "HEAD",
                object.bucket(),
                object.key(),
                null,
                null,
                signer(object.credentials()),
                object.sseCustomerKey());
        log.add(request);
        sseKeys.add(object.sseCustomerKey());
        for (Fault fault : faults) {
            fault.apply(request);
        }
        authorize(object.credentials(), object.bucket(), "HEAD " + object);
        Stored stored = find(object, "HEAD " + object);
        checkSseKey(stored, object, "HEAD " + object);
        return new ObjectMetadata(stored.data().length, stored.etag());
    }

    @Override
    public ListPage list(ListRequest list) throws IOException {
        Request request = new Request("LIST", list.bucket(), list.prefix(), null, null, signer(null), null);
        log.add(request);
        listLog.add(list);
        for (Fault fault : faults) {
            fault.apply(request);
        }
        authorize(null, list.bucket(), "LIST " + list.describe());
        boolean directoryBucket = list.bucket().endsWith("--x-s3");
        if (directoryBucket && list.startAfter() != null && list.continuationToken() == null) {
            throw new HttpStatusException(
                    "LIST " + list.describe() + ": 400 StartAfter is not supported by " + "directory buckets",
                    400,
                    null);
        }
        if (directoryBucket && !list.prefix().isEmpty() && !list.prefix().endsWith("/")) {
            throw new HttpStatusException(
                    "LIST " + list.describe() + ": 400 directory buckets list only prefixes " + "ending in /",
                    400,
                    null);
        }
        String bucketPrefix = list.bucket() + "/";
        List<String> keys = objects.keySet().stream()
                .filter(name -> name.startsWith(bucketPrefix))
                .map(name -> name.substring(bucketPrefix.length()))
                .filter(key -> key.startsWith(list.prefix()))
                .sorted(UTF8_ORDER)
                .toList();
        // after: the last key or common prefix already answered; rolledUp: whether it was a common prefix
        String after = null;
        boolean rolledUp = false;
        if (list.continuationToken() != null) {
            String token = new String(Base64.getUrlDecoder().decode(list.continuationToken()), StandardCharsets.UTF_8);
            rolledUp = token.charAt(0) == 'P';
            after = token.substring(1);
        } else if (list.startAfter() != null && !ignoreStartAfter) {
            after = list.startAfter();
        }
        int limit = Math.min(list.maxKeys(), ListRequest.MAX_PAGE_SIZE);
        List<ListedObject> entries = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String last = null;
        boolean lastRolledUp = false;
        boolean truncated = false;
        for (String key : keys) {
            if (after != null && (UTF8_ORDER.compare(key, after) <= 0 || rolledUp && key.startsWith(after))) {
                continue;
            }
            String commonPrefix = null;
            if (list.delimiter() != null) {
                int at = key.indexOf(list.delimiter(), list.prefix().length());
                if (at >= 0) {
                    commonPrefix = key.substring(0, at + list.delimiter().length());
                }
            }
            if (commonPrefix != null && lastRolledUp && commonPrefix.equals(last)) {
                continue; // one entry for every key under this common prefix
            }
            if (entries.size() + prefixes.size() == limit) {
                truncated = true;
                break;
            }
            if (commonPrefix != null) {
                prefixes.add(commonPrefix);
                last = commonPrefix;
                lastRolledUp = true;
            } else {
                Stored stored = objects.get(bucketPrefix + key);
                if (stored == null) {
                    continue; // deleted meanwhile
                }
                entries.add(new ListedObject(
                        new S3Location(list.bucket(), key),
                        stored.data().length,
                        stored.etag(),
                        stored.lastModified()));
                last = key;
                lastRolledUp = false;
            }
        }
        if (directoryBucket) {
            // directory buckets answer in no particular order: a fixed shuffle, so tests are repeatable
            entries.sort(Comparator.comparingInt((ListedObject entry) ->
                    Integer.reverse(entry.location().key().hashCode())));
        }
        String token = !truncated
                ? null
                : Base64.getUrlEncoder()
                        .encodeToString(((lastRolledUp ? "P" : "K") + last).getBytes(StandardCharsets.UTF_8));
        return new ListPage(entries, prefixes, truncated, token);
    }

    /**
     * UTF-8 binary order, by its definition: the keys' UTF-8 bytes compared as unsigned bytes (the library's own
     * comparator works on code points; this fake is the independent check of it).
     */
    public static final Comparator<String> UTF8_ORDER = (left, right) -> java.util.Arrays.compareUnsigned(
            left.getBytes(StandardCharsets.UTF_8), right.getBytes(StandardCharsets.UTF_8));

    /** The access key id a request is signed with, or {@code null} (unsigned, or nobody registered). */
    private String signer(IdentityProvider<? extends AwsCredentialsIdentity> named) throws IOException {
        if (users.isEmpty()) {
            return null;
        }
        AwsCredentialsIdentity credentials = resolve(named);
        return credentials == null ? null : credentials.accessKeyId();
    }

    /** Resolves the signer's credentials as the SDK does for each request; a provider's failure fails the request. */
    private AwsCredentialsIdentity resolve(IdentityProvider<? extends AwsCredentialsIdentity> named)
            throws IOException {
        IdentityProvider<? extends AwsCredentialsIdentity> provider = named != null ? named : ownCredentials;
        if (provider == null) {
            return null;
        }
        try {
            return provider.resolveIdentity().join();
        } catch (RuntimeException e) {
            throw new IOException("Unable to load credentials: " + e.getMessage(), e);
        }
    }

    /** Refuses, as S3 would, a request its signer may not send; everything passes while nobody is registered. */
    private void authorize(IdentityProvider<? extends AwsCredentialsIdentity> named, String bucket, String what)
            throws IOException {
        if (users.isEmpty()) {
            return;
        }
        AwsCredentialsIdentity credentials = resolve(named);
        if (credentials == null || credentials.accessKeyId() == null) {
            throw new HttpStatusException(what + ": 403 AccessDenied (anonymous)", 403, null);
        }
        User user = users.get(credentials.accessKeyId());
        if (user == null) {
            throw new HttpStatusException(what + ": 403 InvalidAccessKeyId", 403, null);
        }
        String token = credentials instanceof AwsSessionCredentialsIdentity session ? session.sessionToken() : null;
        if (!user.secret().equals(credentials.secretAccessKey()) || !Objects.equals(user.sessionToken(), token)) {
            throw new HttpStatusException(what + ": 403 SignatureDoesNotMatch", 403, null);
        }
        if (!user.buckets().contains(bucket)) {
            throw new HttpStatusException(what + ": 403 AccessDenied", 403, null);
        }
    }

    /** SSE-C as S3 checks it: the object's key, no other, and no key for an object stored without one. */
    private static void checkSseKey(Stored stored, ObjectAddress object, String what) throws HttpStatusException {
        SseCustomerKey sent = object.sseCustomerKey();
        if (stored.sseKey() == null && sent != null) {
            throw new HttpStatusException(
                    what + ": 400 InvalidRequest (the object was not stored with an SSE-C key)", 400, null);
        }
        if (stored.sseKey() != null && sent == null) {
            throw new HttpStatusException(
                    what + ": 400 InvalidRequest (the object was stored with an SSE-C key)", 400, null);
        }
        if (stored.sseKey() != null && !stored.sseKey().equals(sent)) {
            throw new HttpStatusException(what + ": 403 AccessDenied (wrong SSE-C key)", 403, null);
        }
    }

    private Stored find(ObjectAddress object, String what) throws FileNotFoundException {
        Stored stored = objects.get(object.bucket() + "/" + object.key());
        if (stored == null) {
            throw new FileNotFoundException(what + ": 404 no such key");
        }
        return stored;
    }

    public static String etagOf(byte[] data) {
        try {
            return "\""
                    + HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data)) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
