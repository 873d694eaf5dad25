package io.rangefetch.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** Bad values stop the runner before it starts anything, as usage errors. */
class BenchCommandTest {

    @Test
    void unknownNamesAndScalesOutOfRangeAreUsageErrors() {
        assertThat(run("--readers", "rangefetch,nope")).isEqualTo(2);
        assertThat(run("--workloads", "everything")).isEqualTo(2);
        assertThat(run("--scale", "2")).isEqualTo(2);
        assertThat(run("--runs", "many")).isEqualTo(2);
        assertThat(run("--scenarios", "earthquake")).isEqualTo(2);
        assertThat(run("--listing-layout", "lots")).isEqualTo(2);
        assertThat(run("--listing-layout", "24000x0")).isEqualTo(2);
        assertThat(run("--scenarios", "rate-limit", "--rate-limit", "0")).isEqualTo(2);
        assertThat(run("--scenarios", "rate-limit", "--workloads", "projection"))
                .as("leaves nothing to run")
                .isEqualTo(2);
    }

    @Test
    void helpListsTheReadersAndWorkloads() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, UTF_8));
        try {
            assertThat(run("--help")).isZero();
        } finally {
            System.setOut(original);
        }
        assertThat(out.toString(UTF_8))
                .contains(
                        "s3a-analytics",
                        "orc-vectored",
                        "--first-byte-delay",
                        "--bucket",
                        "--scenarios",
                        "slow-first-byte",
                        "--rate-limit",
                        "--listing-layout",
                        "24000x1");
    }

    private static int run(String... args) {
        return Bench.run(args, new PrintStream(new ByteArrayOutputStream(), true, UTF_8));
    }
}
