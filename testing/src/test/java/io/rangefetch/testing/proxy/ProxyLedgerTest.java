package io.rangefetch.testing.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProxyLedgerTest {

    private final ProxyLedger ledger = new ProxyLedger();

    @Test
    void countsRequestsByMethodAndBytesByKind() {
        ledger.connectionOpened();
        ProxyLedger.Exchange get = ledger.arrived("GET", "/b/k", "bytes=0-9");
        ledger.responseStarted(get, 206);
        ledger.sent(get, 100, false);
        ledger.sent(get, 10, true);
        ProxyLedger.Exchange head = ledger.arrived("HEAD", "/b/k", null);
        ledger.arrived("GET", "/b/other", null);
        ledger.responseStarted(head, 200);
        ledger.sent(head, 80, false);

        assertThat(ledger.gets()).isEqualTo(2);
        assertThat(ledger.heads()).isEqualTo(1);
        assertThat(ledger.requests("PUT")).isZero();
        assertThat(ledger.responseBodyBytes()).isEqualTo(10);
        assertThat(ledger.responseBytes()).isEqualTo(190);
        assertThat(ledger.connectionsOpened()).isEqualTo(1);
        assertThat(ledger.requests())
                .containsExactly(
                        new ProxiedRequest("GET", "/b/k", "bytes=0-9", 206, 10),
                        new ProxiedRequest("HEAD", "/b/k", null, 200, 0),
                        new ProxiedRequest("GET", "/b/other", null, 0, 0));
    }

    @Test
    void countsResponsesByStatusAsTheirHeadsGoUntilReset() {
        ledger.responseStarted(ledger.arrived("GET", "/b/k", null), 206);
        ledger.responseStarted(ledger.arrived("GET", "/b/k", null), 206);
        ledger.responseStarted(ledger.arrived("HEAD", "/b/k", null), 503);
        ledger.arrived("GET", "/b/pending", null);

        assertThat(ledger.responses(206)).isEqualTo(2);
        assertThat(ledger.responses(503)).isEqualTo(1);
        assertThat(ledger.responses(200)).isZero();
        assertThat(ledger.responses(0))
                .as("a response not started has no status yet")
                .isZero();
        ledger.reset();
        assertThat(ledger.responses(206)).isZero();
    }

    @Test
    void resetForgetsEverythingAndAResponseUnderWayCountsOnFromZero() {
        ledger.connectionOpened();
        ProxyLedger.Exchange get = ledger.arrived("GET", "/b/k", null);
        ledger.sent(get, 50, true);

        ledger.reset();
        ledger.sent(get, 7, true);

        assertThat(ledger.gets()).isZero();
        assertThat(ledger.requests()).isEmpty();
        assertThat(ledger.connectionsOpened()).isZero();
        assertThat(ledger.responseBodyBytes()).isEqualTo(7);
        assertThat(ledger.responseBytes()).isEqualTo(7);
    }

    @Test
    void countsTheMostRequestsInFlightAtOnce() {
        ProxyLedger.Exchange first = ledger.arrived("GET", "/b/k", "bytes=0-9");
        ProxyLedger.Exchange second = ledger.arrived("GET", "/b/k", "bytes=10-19");
        ledger.ended(first);
        ProxyLedger.Exchange third = ledger.arrived("GET", "/b/k", "bytes=20-29");
        ProxyLedger.Exchange fourth = ledger.arrived("GET", "/b/k", "bytes=30-39");
        ledger.ended(second);
        ledger.ended(third);
        ledger.ended(fourth);
        ledger.ended(fourth); // a second end of the same request changes nothing

        assertThat(ledger.maxRequestsInFlight()).isEqualTo(3);
        ledger.arrived("HEAD", "/b/k", null);
        assertThat(ledger.maxRequestsInFlight())
                .as("one in flight is fewer than three")
                .isEqualTo(3);
    }

    @Test
    void requestsOneAfterAnotherAreNeverMoreThanOneInFlight() {
        assertThat(ledger.maxRequestsInFlight()).isZero();
        for (int i = 0; i < 5; i++) {
            ledger.ended(ledger.arrived("GET", "/b/k", null));
        }

        assertThat(ledger.maxRequestsInFlight()).isEqualTo(1);
    }

    @Test
    void resetStartsTheMostInFlightAgainFromTheRequestsStillInFlight() {
        ProxyLedger.Exchange longOne = ledger.arrived("GET", "/b/long", null);
        ledger.ended(ledger.arrived("GET", "/b/k", null));
        ledger.ended(ledger.arrived("GET", "/b/k", null));

        ledger.reset();
        assertThat(ledger.maxRequestsInFlight())
                .as("the long one is still in flight")
                .isEqualTo(1);
        ProxyLedger.Exchange next = ledger.arrived("GET", "/b/k", null);
        assertThat(ledger.maxRequestsInFlight()).isEqualTo(2);

        ledger.ended(longOne);
        ledger.ended(next);
        ledger.reset();
        assertThat(ledger.maxRequestsInFlight()).isZero();
        ledger.ended(ledger.arrived("GET", "/b/k", null));
        assertThat(ledger.maxRequestsInFlight()).isEqualTo(1);
    }
}
