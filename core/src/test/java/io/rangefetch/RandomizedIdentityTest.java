package io.rangefetch;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.HEDGE_ENABLED;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_INITIAL_SIZE;
import static io.rangefetch.StreamConfig.PREFETCH_MAX_SIZE;
import static io.rangefetch.StreamConfig.RETRY_BASE_DELAY;
import static io.rangefetch.StreamConfig.RETRY_MAX_DELAY;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_PART_SIZE;
import static io.rangefetch.StreamConfig.SMALL_OBJECT_SIZE;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ListedObject;
import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.S3Location;
import io.rangefetch.client.SseCustomerKey;
import io.rangefetch.testing.BodyHold;
import io.rangefetch.testing.GatedObjectClient;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.QuiescentExecutor;
import io.rangefetch.testing.TestData;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * Randomized schedules in which several identities read overlapping objects at once through one factory, each
 * handed only what its own rights allow. An identity is what S3 judges a request by: the credentials it is signed
 * with (a user's keys, from the provider every stream of that user shares or from a fresh instance; a session
 * user's; an impostor's, a real access key id with a wrong secret; or none, so the client signs as root, who may
 * read everything) and the SSE-C key it carries (none, the object's, or another). The in-memory client refuses as S3
 * does, so whether an identity may read an object is known beforehand: its principal may read the bucket, and the
 * key it sends is the one the object was stored with (none for a plain object).
 *
 * <p><b>Why.</b> The engine shares cached blocks, blocks in flight and learned lengths and ETags between streams of
 * one identity and no other; {@link IdentityIsolationTest} pins each of those paths once, by hand. Here the paths
 * meet at random: a stream of one identity opens on an object while another identity's GET of it is in flight,
 * after another's blocks were cached, after a listing, with or without the length and ETag a caller who listed it
 * would give, on a budget small enough that blocks are evicted and reserved while others wait.
 *
 * <p><b>A schedule</b>, all from its seed: 2-3 buckets; 3-6 objects of 0 bytes to 400 KiB (most larger than one GET
 * may ask for), some stored under one of two SSE-C keys; root and 3-5 users (one with session credentials), each
 * allowed a random subset of the buckets, sometimes an impostor; a factory with a budget of 64-512 KiB, 1-3 fetch
 * slots, no hedging and retries without delay; 3-6 reader threads, each opening one stream as a random identity on a
 * random object (half of them on the same one) and running 1-5 random operations: {@code length()}, {@code read()},
 * {@code readFully}, {@code readTail}, {@code readVectored} of 1-3 ranges, {@code seek} and {@code read(byte[], ..)},
 * and now and then a listing of a bucket as root. Response bodies either wait at gates the driver opens in the
 * seed's order ({@link GatedObjectClient}), or, in one schedule in four, the GETs of one allowed identity on the
 * most-read object are held ({@code holdBodies}) while the others open and read it.
 *
 * <p><b>Checked on every schedule:</b>
 * <ul>
 *   <li>a stream that may read its object is handed the object's bytes at every position, its length, and an end of
 *       file exactly where the object ends, and never fails;</li>
 *   <li>a stream that may not is handed no byte, no length and no end of file: every operation fails with an
 *       {@link IOException} whose cause is the server's refusal of that very identity (403 for a bucket it may not
 *       read, a wrong secret or a wrong key; 400 for a missing key or a key sent to a plain object), and every
 *       vectored range fails. Two exceptions, both knowledge of its own: what its caller told it (the length, so an
 *       end of file past it: the engine answers these without a request, so does an empty object of length 0), and,
 *       for a root stream without an SSE-C key, the length of an SSE-C object after a root listing of its bucket
 *       (S3's LIST tells sizes and ETags without the key; the factory lists as that very identity);</li>
 *   <li>every GET and HEAD is signed by the access key of a stream opened on that object, every LIST by root's: no
 *       request of one identity went out under another's credentials;</li>
 *   <li>every operation ends within a deadline; once every stream is closed no fetch is left running;</li>
 *   <li>cached plus in-flight bytes never exceed the budget (sampled by the driver, and the cache's own peak), and
 *       none are held once the factory is closed;</li>
 *   <li>no exception escapes a Rangefetch thread.</li>
 * </ul>
 * No verdict depends on timing: besides the deadline that calls a wait a hang, the only timed waits decide when the
 * driver opens a gate or lets held bodies go.
 *
 * <p><b>Running it.</b> {@code rangefetch.identity.schedules} schedules (400 by default: 10 to 20 s on two cores)
 * times {@code rangefetch.identity.scale} (1 by default; {@code -Drangefetch.identity.scale=10} for a soak), from a
 * first seed {@code rangefetch.identity.seed} (the clock's nanoseconds by default), schedule {@code i} using seed
 * {@code first + i}. A failure names its schedule's seed and what every stream was; rerun it alone with
 * {@code -Drangefetch.identity.seed=SEED -Drangefetch.identity.schedules=1}. Separate properties from
 * {@link RandomizedConcurrencyTest}'s, so that each suite's count is set on its own.
 */
class RandomizedIdentityTest {
    private static final int SCHEDULES = (int) Math.max(
            1,
            Math.round(Integer.getInteger("rangefetch.identity.schedules", 400)
                    * Double.parseDouble(System.getProperty("rangefetch.identity.scale", "1"))));
    private static final long FIRST_SEED = Long.getLong("rangefetch.identity.seed", System.nanoTime());
    private static final long DEADLINE_SECONDS = 30;
    private static final int MAX_READERS = 6;
    private static final int KIB = 1024;
    private static final String PREFIX = "data/";
    // while bodies are held, IDLE_POLLS waits of IDLE_MILLIS with no operation ending mean the others wait for them
    private static final long IDLE_MILLIS = 10;
    private static final int IDLE_POLLS = 5;

    private static ExecutorService readers;

    @BeforeAll
    static void startReaders() {
        AtomicInteger count = new AtomicInteger();
        readers = Executors.newFixedThreadPool(MAX_READERS, runnable -> {
            Thread thread = new Thread(runnable, "identity-reader-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterAll
    static void stopReaders() throws InterruptedException {
        readers.shutdownNow();
        if (!readers.awaitTermination(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("Reader threads did not stop within " + DEADLINE_SECONDS + " s");
        }
    }

    @Test
    void everyIdentityIsHandedOnlyWhatItsOwnRightsAllow() throws Exception {
        System.out.println("RandomizedIdentityTest: " + SCHEDULES + " schedules from seed " + FIRST_SEED);
        // the JVM would only print an exception that ends a fetch or timer thread, and the read it broke may still
        // end well
        Queue<Throwable> escaped = new ConcurrentLinkedQueue<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            if (thread.getName().startsWith("rangefetch-") || thread.getName().startsWith("quiescent-executor")) {
                escaped.add(new AssertionError("escaped " + thread.getName(), failure));
            }
            if (before != null) {
                before.uncaughtException(thread, failure);
            }
        });
        try {
            for (int i = 0; i < SCHEDULES; i++) {
                long seed = FIRST_SEED + i;
                try {
                    new Schedule(seed).run();
                    if (!escaped.isEmpty()) {
                        throw new AssertionError("an exception escaped a Rangefetch thread", escaped.peek());
                    }
                } catch (AssertionError | Exception e) {
                    throw new AssertionError(
                            "Schedule with seed " + seed + " failed (rerun with -Drangefetch.identity.seed=" + seed
                                    + " -Drangefetch.identity.schedules=1): " + e.getMessage(),
                            e);
                }
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    /** Someone requests are signed as: its keys, and the buckets S3 lets it read (none for an impostor). */
    private record Principal(
            String name, String accessKeyId, String secret, String sessionToken, Set<String> readable) {
        /** Another provider instance of the same credentials: the same principal. */
        AwsCredentialsProvider newProvider() {
            return StaticCredentialsProvider.create(
                    sessionToken == null
                            ? AwsBasicCredentials.create(accessKeyId, secret)
                            : AwsSessionCredentials.create(accessKeyId, secret, sessionToken));
        }
    }

    /** An object as stored: its bytes, its ETag, and the SSE-C key it was stored with ({@code null}: none). */
    private record StoredObject(S3Location location, byte[] data, String etag, SseCustomerKey sseKey) {
        long length() {
            return data.length;
        }
    }

    /**
     * Who a stream is: the principal it signs as, the provider it names ({@code null}: the client's own, root's)
     * and the SSE-C key it sends ({@code null}: none).
     */
    private record Identity(
            Principal principal, AwsCredentialsProvider credentials, String credentialsSource, SseCustomerKey sseKey) {
        boolean mayRead(StoredObject object) {
            return principal.readable().contains(object.location().bucket()) && Objects.equals(sseKey, object.sseKey());
        }

        /** The status S3 (and the in-memory client) refuses {@code object} with: who asks first, then the key. */
        int refusalOf(StoredObject object) {
            if (!principal.readable().contains(object.location().bucket())) {
                return 403;
            }
            if (object.sseKey() == null || sseKey == null) {
                return 400;
            }
            return 403;
        }
    }

    /** One reader thread's stream: who opens it on what, and whether it is told the length and ETag. */
    private record StreamPlan(int reader, Identity identity, StoredObject object, boolean toldVersion, long seed) {
        boolean allowed() {
            return identity.mayRead(object);
        }

        OpenOptions options() {
            OpenOptions.Builder options = OpenOptions.builder();
            if (identity.credentials() != null) {
                options.credentials(identity.credentials());
            }
            if (identity.sseKey() != null) {
                options.sseCustomerKey(identity.sseKey());
            }
            if (toldVersion) {
                options.length(object.length()).etag(object.etag());
            }
            return options.build();
        }
    }

    /**
     * The gated client, plus what it does not pass on from its store: whom a request is signed as when its stream
     * names no credentials (so that root's streams are one identity, as a real client's are), and listings.
     */
    private record GatedSigningClient(GatedObjectClient gated, InMemoryObjectClient store) implements ObjectClient {
        @Override
        public ObjectContent get(RangeGetRequest request) throws IOException {
            return gated.get(request);
        }

        @Override
        public ObjectMetadata head(ObjectAddress object) throws IOException {
            return gated.head(object);
        }

        @Override
        public ListPage list(ListRequest request) throws IOException {
            return store.list(request);
        }

        @Override
        public Optional<IdentityProvider<? extends AwsCredentialsIdentity>> credentials() {
            return store.credentials();
        }
    }

    private static final class Schedule {
        private final long seed;
        private final SplittableRandom random;
        private final InMemoryObjectClient store = new InMemoryObjectClient();
        private final List<String> buckets = new ArrayList<>();
        private final List<SseCustomerKey> sseKeys = new ArrayList<>();
        private final List<StoredObject> objects = new ArrayList<>();
        private final List<Principal> principals = new ArrayList<>();
        private final Map<Principal, AwsCredentialsProvider> sharedProviders = new HashMap<>();
        private final Principal root;
        private final long budget;
        private final boolean holdOneIdentity;
        // buckets a root listing has started on: from then on root's keyless streams may know their objects' lengths
        private final Set<String> listedBuckets = ConcurrentHashMap.newKeySet();
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private final AtomicInteger running = new AtomicInteger();
        private final Semaphore operationsEnded = new Semaphore(0);
        private StreamFactory factory;

        Schedule(long seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.budget = (64L + random.nextInt(8) * 64) * KIB;
            this.holdOneIdentity = random.nextInt(4) == 0;
            int bucketCount = 2 + random.nextInt(2);
            for (int i = 0; i < bucketCount; i++) {
                buckets.add("bucket-" + (char) ('a' + i));
            }
            for (int i = 0; i < 2; i++) {
                sseKeys.add(SseCustomerKey.ofBase64(
                        Base64.getEncoder().encodeToString(TestData.bytes(32, random.nextLong()))));
            }
            this.root = new Principal("root", "AKIDROOT", "root-secret", null, Set.copyOf(buckets));
            store.addUser(root.accessKeyId(), root.secret(), null, root.readable());
            store.signWith(sharedProvider(root));
            principals.add(root);
            addUsers();
            addObjects();
        }

        private void addUsers() {
            int userCount = 3 + random.nextInt(3);
            int withSession = random.nextInt(userCount);
            for (int i = 0; i < userCount; i++) {
                Set<String> readable = new LinkedHashSet<>();
                for (String bucket : buckets) {
                    if (random.nextBoolean()) {
                        readable.add(bucket);
                    }
                }
                Principal user = i == withSession
                        ? new Principal("user-" + i, "ASIAUSER" + i, "secret-" + i, "token-" + i, Set.copyOf(readable))
                        : new Principal("user-" + i, "AKIDUSER" + i, "secret-" + i, null, Set.copyOf(readable));
                store.addUser(user.accessKeyId(), user.secret(), user.sessionToken(), user.readable());
                principals.add(user);
            }
            if (random.nextInt(3) == 0) {
                // a real access key id (root's, maybe) with a wrong secret: S3 refuses it everything
                Principal claimed = principals.get(random.nextInt(principals.size()));
                principals.add(new Principal(
                        "impostor of " + claimed.name(),
                        claimed.accessKeyId(),
                        "not-" + claimed.secret(),
                        claimed.sessionToken(),
                        Set.of()));
            }
        }

        private void addObjects() {
            int objectCount = 3 + random.nextInt(4);
            for (int i = 0; i < objectCount; i++) {
                int kind = random.nextInt(8);
                // the first object, which half the streams read, has bytes: it is the one whose GETs may be held
                int length =
                        kind == 0 && i > 0 ? 0 : kind == 1 ? 1 + random.nextInt(200) : 1 + random.nextInt(400 * KIB);
                byte[] data = TestData.bytes(length, random.nextLong());
                S3Location location =
                        new S3Location(buckets.get(random.nextInt(buckets.size())), PREFIX + "object-" + i);
                SseCustomerKey key = random.nextInt(5) < 2 ? sseKeys.get(random.nextInt(sseKeys.size())) : null;
                String etag = key == null
                        ? store.put(location.bucket(), location.key(), data)
                        : store.putEncrypted(location.bucket(), location.key(), data, key);
                objects.add(new StoredObject(location, data, etag, key));
            }
        }

        private AwsCredentialsProvider sharedProvider(Principal principal) {
            return sharedProviders.computeIfAbsent(principal, Principal::newProvider);
        }

        private Identity randomIdentity(StoredObject object, List<Principal> among) {
            Principal principal = among.get(random.nextInt(among.size()));
            int source = random.nextInt(3);
            if (principal == root && source > 0) {
                return new Identity(root, null, "the client's own credentials", randomKey(object));
            }
            return source == 0
                    ? new Identity(principal, principal.newProvider(), "a fresh provider", randomKey(object))
                    : new Identity(principal, sharedProvider(principal), "its shared provider", randomKey(object));
        }

        /** The object's own key (none for a plain one) mostly; else none, or a wrong one. */
        private SseCustomerKey randomKey(StoredObject object) {
            int pick = random.nextInt(10);
            if (pick < 6) {
                return object.sseKey();
            }
            if (pick < 8) {
                return null;
            }
            return object.sseKey() == null
                    ? sseKeys.get(random.nextInt(sseKeys.size()))
                    : sseKeys.get(1 - sseKeys.indexOf(object.sseKey()));
        }

        private List<StreamPlan> plans() {
            StoredObject hot = objects.get(0);
            List<StreamPlan> plans = new ArrayList<>();
            int readerCount = 3 + random.nextInt(MAX_READERS - 2);
            for (int reader = 0; reader < readerCount; reader++) {
                StoredObject object =
                        reader == 0 || random.nextBoolean() ? hot : objects.get(random.nextInt(objects.size()));
                Identity identity;
                if (reader == 0 && holdOneIdentity) {
                    // whose GETs are held: someone who may read the hot object, so that it has a body to hold
                    List<Principal> mayReadHot = principals.stream()
                            .filter(principal ->
                                    principal.readable().contains(hot.location().bucket()))
                            .toList();
                    Identity any = randomIdentity(hot, mayReadHot);
                    identity = new Identity(any.principal(), any.credentials(), any.credentialsSource(), hot.sseKey());
                } else {
                    identity = randomIdentity(object, principals);
                }
                plans.add(new StreamPlan(reader, identity, object, random.nextInt(3) == 0, random.nextLong()));
            }
            return plans;
        }

        void run() throws Exception {
            List<StreamPlan> plans = plans();
            GatedObjectClient gated = holdOneIdentity ? null : new GatedObjectClient(store);
            ObjectClient client = holdOneIdentity ? store : new GatedSigningClient(gated, store);
            StreamConfig config = StreamConfig.builder()
                    .set(CACHE_MAX_MEMORY, budget)
                    .set(FETCH_MAX_CONCURRENCY, 1 + random.nextInt(3))
                    .set(MIN_REQUEST_SIZE, 8 * KIB)
                    .set(MAX_REQUEST_SIZE, 32L * KIB << random.nextInt(3))
                    .set(SMALL_OBJECT_SIZE, random.nextBoolean() ? 0 : 64L * KIB)
                    .set(SMALL_OBJECT_PART_SIZE, 16 * KIB)
                    .set(PREFETCH_INITIAL_SIZE, 16 * KIB)
                    .set(PREFETCH_MAX_SIZE, random.nextBoolean() ? 0 : 128 * KIB)
                    .set(HEDGE_ENABLED, false)
                    .set(RETRY_BASE_DELAY, Duration.ZERO)
                    .set(RETRY_MAX_DELAY, Duration.ZERO)
                    .build();
            QuiescentExecutor fetches = new QuiescentExecutor();
            factory = StreamFactory.builder(client)
                    .config(config)
                    .executor(fetches)
                    .formatPolicies(List.of())
                    .build();
            BodyHold hold = null;
            List<Reader> started = new ArrayList<>();
            List<Future<Void>> ends = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
            try {
                if (holdOneIdentity) {
                    StreamPlan holder = plans.get(0);
                    S3Location held = holder.object().location();
                    String heldSigner = holder.identity().principal().accessKeyId();
                    hold = store.holdBodies(request -> request.isGet()
                            && request.bucket().equals(held.bucket())
                            && request.key().equals(held.key())
                            && heldSigner.equals(request.signedBy()));
                    start(new Reader(holder, true), started, ends);
                    if (!hold.awaitHeld(1)) {
                        throw new AssertionError("reader 0 (" + describe(holder) + ") sent no GET to hold: it was "
                                + started.get(0).doing);
                    }
                }
                for (StreamPlan plan : plans.subList(started.size(), plans.size())) {
                    start(new Reader(plan, false), started, ends);
                }
                if (hold != null) {
                    awaitOthersThenRelease(hold);
                } else {
                    openGatesUntilDone(gated, deadline);
                }
                for (int i = 0; i < ends.size(); i++) {
                    try {
                        ends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (TimeoutException e) {
                        throw new AssertionError("reader " + i + " (" + describe(plans.get(i)) + ") did not end within "
                                + DEADLINE_SECONDS + " s: it was at " + started.get(i).doing + "\n" + describe(plans));
                    } catch (ExecutionException e) {
                        throw new AssertionError(
                                "reader " + i + " (" + describe(plans.get(i)) + ") broke: " + e.getCause(),
                                e.getCause());
                    }
                }
                if (!fetches.awaitQuiet()) {
                    throw new AssertionError("fetches still ran after every stream was closed\n" + describe(plans));
                }
                if (factory.cacheMemoryBytes() > budget) {
                    failures.add("the cache holds " + factory.cacheMemoryBytes() + " bytes, over the budget " + budget);
                }
                if (factory.peakCacheMemoryBytes() > budget) {
                    failures.add("the cache held " + factory.peakCacheMemoryBytes() + " bytes at its peak, over the "
                            + "budget " + budget);
                }
                checkSigners(plans);
                if (!failures.isEmpty()) {
                    throw new AssertionError(failures.size() + " broken promises:\n  "
                            + String.join("\n  ", failures.subList(0, Math.min(20, failures.size()))) + "\n"
                            + describe(plans));
                }
                factory.close();
                if (factory.cacheMemoryBytes() != 0) {
                    throw new AssertionError(
                            factory.cacheMemoryBytes() + " bytes still held once the factory was closed");
                }
            } finally {
                if (gated != null) {
                    gated.openAll();
                }
                if (hold != null) {
                    hold.release();
                }
                factory.close();
                fetches.close();
            }
        }

        private void start(Reader reader, List<Reader> started, List<Future<Void>> ends) {
            running.incrementAndGet();
            started.add(reader);
            ends.add(readers.submit(reader));
        }

        /**
         * Lets bodies through one gate at a time, in the seed's order, until every reader is done; samples the
         * budget at every step.
         */
        private void openGatesUntilDone(GatedObjectClient gated, long deadline) throws InterruptedException {
            while (running.get() > 0 && System.nanoTime() < deadline) {
                checkBudget();
                gated.openOne(random, 5);
            }
            gated.openAll();
        }

        /**
         * Keeps the held identity's bodies back while the other readers end a number of operations the seed picks,
         * and lets them go sooner if no operation ends for a while: the others may be queued behind the held GETs
         * for a fetch slot or for budget. When they go decides the schedule's shape, never a verdict.
         */
        private void awaitOthersThenRelease(BodyHold hold) throws InterruptedException {
            int releaseAfter = random.nextInt(8);
            int ended = 0;
            int idle = 0;
            while (ended < releaseAfter && idle < IDLE_POLLS && running.get() > 0) {
                checkBudget();
                if (operationsEnded.tryAcquire(IDLE_MILLIS, TimeUnit.MILLISECONDS)) {
                    ended++;
                    idle = 0;
                } else {
                    idle++;
                }
            }
            hold.release();
        }

        private void checkBudget() {
            long held = factory.cacheMemoryBytes();
            if (held > budget) {
                failures.add("the cache held " + held + " bytes, over the budget " + budget);
            }
        }

        /**
         * Every GET and HEAD is signed by the access key of a stream that was opened on its object, every LIST by
         * root's, which the factory lists as: a request of one identity never went out under another's keys.
         */
        private void checkSigners(List<StreamPlan> plans) {
            Map<String, Set<String>> signersByObject = new HashMap<>();
            for (StreamPlan plan : plans) {
                signersByObject
                        .computeIfAbsent(plan.object().location().toString(), object -> new LinkedHashSet<>())
                        .add(plan.identity().principal().accessKeyId());
            }
            for (Request request : store.requests()) {
                if (request.method().equals("LIST")) {
                    if (!root.accessKeyId().equals(request.signedBy())) {
                        failures.add(request + " was not signed by root, whom the factory lists as");
                    }
                    continue;
                }
                Set<String> signers = signersByObject.getOrDefault(
                        new S3Location(request.bucket(), request.key()).toString(), Set.of());
                if (!signers.contains(request.signedBy())) {
                    failures.add(request + " was signed by " + request.signedBy() + "; only " + signers
                            + " opened streams on that object");
                }
            }
        }

        private String describe(StreamPlan plan) {
            Identity identity = plan.identity();
            return identity.principal().name() + " (" + identity.principal().accessKeyId() + ", "
                    + identity.credentialsSource() + ", SSE-C " + keyName(identity.sseKey()) + ") on "
                    + plan.object().location() + (plan.toldVersion() ? ", told its length and ETag" : "") + ": "
                    + (plan.allowed() ? "may read" : "refused " + identity.refusalOf(plan.object()));
        }

        /** The schedule as a failure tells it: enough to see why each stream may or may not read. */
        private String describe(List<StreamPlan> plans) {
            String objectLines = objects.stream()
                    .map(object ->
                            object.location() + ": " + object.length() + " bytes, SSE-C " + keyName(object.sseKey()))
                    .collect(Collectors.joining("\n  "));
            String principalLines = principals.stream()
                    .map(principal -> principal.name() + " (" + principal.accessKeyId()
                            + (principal.sessionToken() == null ? "" : ", session") + ") reads "
                            + new TreeSet<>(principal.readable()))
                    .collect(Collectors.joining("\n  "));
            String streamLines = plans.stream()
                    .map(plan -> "reader " + plan.reader() + ": " + describe(plan))
                    .collect(Collectors.joining("\n  "));
            return "budget " + budget / KIB + " KiB, " + (holdOneIdentity ? "reader 0's GETs held" : "bodies gated")
                    + "\nobjects:\n  " + objectLines + "\nprincipals:\n  " + principalLines + "\nstreams:\n  "
                    + streamLines;
        }

        private String keyName(SseCustomerKey key) {
            return key == null ? "none" : "key " + (char) ('A' + sseKeys.indexOf(key));
        }

        /**
         * One reader thread: opens its stream, runs its operations and judges each outcome against what its identity
         * may read, then closes the stream.
         */
        private final class Reader implements Callable<Void> {
            private final StreamPlan plan;
            private final StoredObject object;
            private final boolean allowed;
            private final boolean firstReadsInside;
            private final SplittableRandom own;
            private volatile String doing = "opening";

            /** @param firstReadsInside its first operation is a positioned read inside the object (a GET to hold) */
            Reader(StreamPlan plan, boolean firstReadsInside) {
                this.plan = plan;
                this.object = plan.object();
                this.allowed = plan.allowed();
                this.firstReadsInside = firstReadsInside;
                this.own = new SplittableRandom(plan.seed());
            }

            @Override
            public Void call() throws InterruptedException {
                try (SeekableS3InputStream stream = factory.open(object.location(), plan.options())) {
                    int count = 1 + own.nextInt(5);
                    for (int i = 0; i < count; i++) {
                        if (i == 0 && firstReadsInside) {
                            long position = own.nextLong(object.length());
                            readFully(stream, position, 1 + own.nextInt((int) (object.length() - position)));
                        } else {
                            operate(stream);
                        }
                        operationsEnded.release();
                    }
                    doing = "closing";
                } catch (RuntimeException e) {
                    fail("threw " + e + " at "
                            + Arrays.asList(e.getStackTrace()).subList(0, Math.min(4, e.getStackTrace().length)));
                } finally {
                    doing = "done";
                    running.decrementAndGet();
                    operationsEnded.release();
                }
                return null;
            }

            private void operate(SeekableS3InputStream stream) throws InterruptedException {
                if (own.nextInt(20) == 0) {
                    listAsRoot();
                    return;
                }
                switch (own.nextInt(6)) {
                    case 0 -> length(stream);
                    case 1 -> readByte(stream);
                    case 2 -> readFully(stream, position(), count());
                    case 3 -> readTail(stream);
                    case 4 -> readVectored(stream);
                    default -> seekAndRead(stream);
                }
            }

            /** Mostly inside the object; else anywhere up to 16 KiB past its end. */
            private long position() {
                return object.length() > 0 && own.nextInt(4) > 0
                        ? own.nextLong(object.length())
                        : own.nextLong(object.length() + 16 * KIB);
            }

            private int count() {
                return 1 + (own.nextBoolean() ? own.nextInt(64) : own.nextInt(96 * KIB));
            }

            private void length(SeekableS3InputStream stream) {
                doing = "length()";
                try {
                    toldLength(stream.length());
                } catch (IOException e) {
                    failed(e);
                }
            }

            private void readByte(SeekableS3InputStream stream) {
                long at = stream.getPos();
                doing = "read() at " + at;
                try {
                    int read = stream.read();
                    if (read < 0) {
                        reportedEnd(at >= object.length());
                    } else {
                        handedOut(at, new byte[] {(byte) read}, 1);
                    }
                } catch (EOFException e) {
                    reportedEnd(at >= object.length());
                } catch (IOException e) {
                    failed(e);
                }
            }

            private void readFully(SeekableS3InputStream stream, long position, int count) {
                doing = "readFully(" + position + ", " + count + ")";
                byte[] buffer = new byte[count];
                try {
                    stream.readFully(position, buffer, 0, count);
                    handedOut(position, buffer, count);
                } catch (EOFException e) {
                    reportedEnd(position + count > object.length());
                } catch (IOException e) {
                    failed(e);
                }
            }

            private void readTail(SeekableS3InputStream stream) {
                int count = count();
                doing = "readTail(" + count + ")";
                byte[] buffer = new byte[count];
                try {
                    int read = stream.readTail(buffer, 0, count);
                    if (read == 0) {
                        reportedEnd(object.length() == 0); // a tail of nothing says the object is empty
                    } else {
                        handedOut(object.length() - read, buffer, read);
                        if (allowed && read != Math.min(count, object.length())) {
                            fail("read a tail of " + read + " bytes");
                        }
                    }
                } catch (IOException e) {
                    failed(e);
                }
            }

            private void readVectored(SeekableS3InputStream stream) throws InterruptedException {
                List<FileRange> ranges = ranges();
                boolean pastEnd = ranges.stream().anyMatch(range -> range.end() > object.length());
                doing = "readVectored(" + ranges + ")";
                try {
                    stream.readVectored(ranges, ByteBuffer::allocate);
                } catch (EOFException e) {
                    reportedEnd(pastEnd);
                    return;
                } catch (IOException e) {
                    failed(e);
                    return;
                }
                if (pastEnd && allowed) {
                    fail("accepted ranges past the end of an object of " + object.length() + " bytes");
                    return;
                }
                for (FileRange range : ranges) {
                    try {
                        ByteBuffer bytes = range.data().get(DEADLINE_SECONDS, TimeUnit.SECONDS);
                        byte[] copy = new byte[bytes.remaining()];
                        bytes.get(copy);
                        handedOut(range.offset(), copy, copy.length);
                        if (copy.length != range.length()) {
                            fail("completed " + range + " with " + copy.length + " bytes");
                        }
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof EOFException) {
                            reportedEnd(pastEnd);
                        } else if (e.getCause() instanceof IOException failure) {
                            failed(failure);
                        } else {
                            fail("failed " + range + " with " + e.getCause());
                        }
                    } catch (TimeoutException e) {
                        fail("left " + range + " incomplete for " + DEADLINE_SECONDS + " s");
                    }
                }
            }

            /**
             * 1-3 ranges, apart or adjacent, inside the object but for the last one now and then, given in order or
             * in reverse (any order is allowed); one past the end of an empty object.
             */
            private List<FileRange> ranges() {
                long length = object.length();
                if (length == 0) {
                    return List.of(FileRange.of(0, 1 + own.nextInt(16)));
                }
                List<FileRange> ranges = new ArrayList<>();
                long cursor = own.nextLong(length);
                int count = 1 + own.nextInt(3);
                while (ranges.size() < count && cursor < length) {
                    int size = (int) Math.min(length - cursor, 1 + own.nextInt(48 * KIB));
                    ranges.add(FileRange.of(cursor, size));
                    cursor += size + (own.nextBoolean() ? 0 : own.nextInt(16 * KIB));
                }
                if (own.nextInt(8) == 0) {
                    FileRange last = ranges.remove(ranges.size() - 1);
                    ranges.add(FileRange.of(last.offset(), (int) (length - last.offset()) + 1 + own.nextInt(KIB)));
                }
                if (own.nextBoolean()) {
                    Collections.reverse(ranges); // any order is allowed
                }
                return ranges;
            }

            private void seekAndRead(SeekableS3InputStream stream) {
                long position = position();
                int count = count();
                doing = "seek(" + position + ")";
                try {
                    stream.seek(position);
                } catch (EOFException e) {
                    reportedEnd(position > object.length());
                    return;
                } catch (IOException e) {
                    failed(e);
                    return;
                }
                doing = "seek(" + position + ") then read(" + count + ")";
                byte[] buffer = new byte[count];
                try {
                    int read = stream.read(buffer, 0, count);
                    if (read < 0) {
                        reportedEnd(position >= object.length());
                    } else if (read == 0) {
                        fail("read 0 bytes");
                    } else {
                        handedOut(position, buffer, read);
                    }
                } catch (EOFException e) {
                    reportedEnd(position >= object.length());
                } catch (IOException e) {
                    failed(e);
                }
            }

            /** Root lists a bucket between this reader's operations; what it finds is the bucket's objects. */
            private void listAsRoot() {
                String bucket = buckets.get(own.nextInt(buckets.size()));
                doing = "list(s3://" + bucket + "/" + PREFIX + ") as root";
                listedBuckets.add(bucket);
                try (ObjectListing listing = factory.list(List.of(new S3Location(bucket, PREFIX)))) {
                    Map<S3Location, String> found = new HashMap<>();
                    for (ListedObject listed : listing.toList()) {
                        found.put(listed.location(), listed.length() + " bytes, " + listed.etag());
                    }
                    Map<S3Location, String> stored = new HashMap<>();
                    for (StoredObject candidate : objects) {
                        if (candidate.location().bucket().equals(bucket)) {
                            stored.put(candidate.location(), candidate.length() + " bytes, " + candidate.etag());
                        }
                    }
                    if (!found.equals(stored)) {
                        fail("listed " + found + ", the bucket holds " + stored);
                    }
                } catch (IOException e) {
                    fail("failed: " + e);
                }
            }

            /** The stream handed out bytes: only a stream that may read its object may, and only the object's. */
            private void handedOut(long position, byte[] bytes, int count) {
                if (!allowed) {
                    fail("handed out " + count + " bytes at " + position + " of an object it may not read");
                    return;
                }
                byte[] data = object.data();
                if (position < 0
                        || position + count > data.length
                        || !Arrays.equals(bytes, 0, count, data, (int) position, (int) position + count)) {
                    fail("handed out " + count + " bytes at " + position + " that are not the object's (" + data.length
                            + " bytes)");
                }
            }

            /** The stream reported the end of the object; {@code pastEnd}: the operation did reach past it. */
            private void reportedEnd(boolean pastEnd) {
                if (!pastEnd) {
                    fail("reported an end of file inside the object (" + object.length() + " bytes)");
                } else if (!allowed && !knowsLength()) {
                    fail("reported the end of file of an object it may not read: it was told its length");
                }
            }

            private void toldLength(long length) {
                if (length != object.length()) {
                    fail("told the length " + length + ", the object has " + object.length() + " bytes");
                } else if (!allowed && !knowsLength()) {
                    fail("told the length of an object it may not read");
                }
            }

            /**
             * Whether the object's length is this stream's own knowledge, so that it may tell it (and an end of file
             * past it) though it may not read the object:
             * <ul>
             *   <li>its caller gave it in {@link OpenOptions}, as one who listed the object would. The engine answers
             *       {@code length()}, a seek or read past that length, and every read of an object given as empty,
             *       without a request: the caller's knowledge handed back, nothing another identity fetched. Bytes
             *       inside the object are still the server's to refuse, and the other checks hold them;</li>
             *   <li>it is a root stream without an SSE-C key, the very identity the factory lists as, and a root
             *       listing of its bucket has started: S3's LIST tells an SSE-C object's size and ETag to whoever may
             *       list the bucket, without the key.</li>
             * </ul>
             */
            private boolean knowsLength() {
                Identity identity = plan.identity();
                return plan.toldVersion()
                        || identity.principal() == root
                                && identity.sseKey() == null
                                && listedBuckets.contains(object.location().bucket());
            }

            /** The operation failed: only a stream that may not read fails, and with the server's refusal of it. */
            private void failed(IOException failure) {
                if (allowed) {
                    fail("failed: " + failure);
                    return;
                }
                int expected = plan.identity().refusalOf(object);
                Integer status = statusOf(failure);
                if (status == null) {
                    fail("failed with " + failure + ", not with the server's refusal (" + expected + ")");
                } else if (status != expected) {
                    fail("failed with " + failure + ": " + status + " is not the server's refusal of this identity ("
                            + expected + "): another identity's answer was handed to it");
                }
            }

            private void fail(String what) {
                failures.add("reader " + plan.reader() + " (" + describe(plan) + "): " + doing + " " + what);
            }
        }
    }

    /** The HTTP status of the first {@link HttpStatusException} among the causes; {@code null} if none. */
    private static Integer statusOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof HttpStatusException status) {
                return status.statusCode();
            }
        }
        return null;
    }
}
