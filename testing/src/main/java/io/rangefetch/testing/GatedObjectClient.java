package io.rangefetch.testing;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ObjectClient;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link ObjectClient} whose GET bodies each wait at a gate of their own until the test opens it: the answer's
 * headers (and so its version) are fixed when the request arrives, its bytes flow only when the test says, as a
 * body on the wire looks to a reader. A test's driver opens gates in the order its seed decides, so interleavings
 * of fetches are chosen, not left to timing. An aborted (closed) body fails its blocked read at once, as a cut
 * connection does. Also records the largest GET it was asked for. Thread-safe.
 */
public final class GatedObjectClient implements ObjectClient {
    private final InMemoryObjectClient store;
    private final List<Gate> waiting = new ArrayList<>();
    private final AtomicLong largestGet = new AtomicLong();
    private boolean open;

    public GatedObjectClient(InMemoryObjectClient store) {
        this.store = requireNonNull(store, "store is null");
    }

    /** The largest number of bytes one GET asked for (a suffix counts its length). */
    public long largestGet() {
        return largestGet.get();
    }

    /** How many bodies wait at a closed gate now. */
    public synchronized int waiting() {
        return waiting.size();
    }

    /**
     * Opens one waiting gate, chosen by {@code random}; {@code false} when none waited within {@code millis}
     * (the readers are busy, or done).
     */
    public boolean openOne(SplittableRandom random, long millis) throws InterruptedException {
        Gate gate;
        synchronized (this) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (waiting.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            gate = waiting.remove(random.nextInt(waiting.size()));
        }
        gate.open();
        return true;
    }

    /** Opens every gate, now and from now on: nothing waits any more. */
    public void openAll() {
        List<Gate> gates;
        synchronized (this) {
            open = true;
            gates = new ArrayList<>(waiting);
            waiting.clear();
        }
        gates.forEach(Gate::open);
    }

    @Override
    public ObjectContent get(RangeGetRequest request) throws IOException {
        long size =
                request.isSuffix() ? request.suffixLength() : request.range().length();
        largestGet.accumulateAndGet(size, Math::max);
        ObjectContent answer = store.get(request);
        Gate gate = new Gate(answer.body());
        synchronized (this) {
            if (open) {
                gate.open();
            } else {
                waiting.add(gate);
                notifyAll();
            }
        }
        return new ObjectContent(gate, answer.range(), answer.metadata());
    }

    @Override
    public ObjectMetadata head(ObjectAddress object) throws IOException {
        return store.head(object);
    }

    /** A body that waits for its gate before its first byte. */
    private static final class Gate extends WaitingBody {
        private boolean opened;
        private boolean closed;

        Gate(InputStream body) {
            super(body);
        }

        synchronized void open() {
            opened = true;
            notifyAll();
        }

        @Override
        protected synchronized void awaitGo() throws IOException {
            try {
                while (!opened && !closed) {
                    wait(); // opened by the driver, or closed by an abort: the driver's loop guarantees one
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while the body waited at its gate", e);
            }
            if (closed) {
                throw new IOException("Body closed at its gate (connection aborted)");
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (this) {
                closed = true;
                notifyAll();
            }
            super.close();
        }
    }
}
