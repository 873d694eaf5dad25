package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WasteMemoryTest {

    @Test
    void aStreamCarriesTheExcessOfItsFilesLastStreamElseOfItsTables() {
        WasteMemory memory = new WasteMemory();
        assertThat(memory.carried("b", "t/p=1/a.parquet")).isZero();
        memory.closed("b", "t/p=1/a.parquet", 5_000);
        assertThat(memory.carried("b", "t/p=1/a.parquet")).isEqualTo(5_000);
        assertThat(memory.carried("b", "t/p=2/c.parquet")).as("the table's").isEqualTo(5_000);
        assertThat(memory.carried("other", "t/p=2/c.parquet"))
                .as("another bucket's table")
                .isZero();
        memory.closed("b", "t/p=2/c.parquet", 0);
        assertThat(memory.carried("b", "t/p=3/d.parquet"))
                .as("the table's last stream wasted nothing")
                .isZero();
        assertThat(memory.carried("b", "t/p=1/a.parquet"))
                .as("the file's own record")
                .isEqualTo(5_000);
        memory.closed("b", "t/p=1/a.parquet", 0);
        assertThat(memory.carried("b", "t/p=1/a.parquet")).isZero();
    }

    @Test
    void smallObjectsOfATableAreReadWholeWhileTheirReadersReadMostOfThem() {
        WasteMemory memory = new WasteMemory();
        assertThat(memory.readsWhole("b", "small/x")).isTrue();
        memory.smallObjectClosed("b", "small/a", 1_000_000, 8_000);
        memory.smallObjectClosed("b", "small/b", 1_000_000, 8_000);
        memory.smallObjectClosed("b", "small/c", 1_000_000, 8_000);
        assertThat(memory.readsWhole("b", "small/d"))
                .as("three files do not judge a table")
                .isTrue();
        for (int i = 0; i < WasteMemory.FILES_PER_TABLE; i++) {
            memory.smallObjectClosed("b", "small/" + i, 1_000_000, 900_000); // a file's data stream
            memory.smallObjectClosed("b", "small/" + i, 1_000_000, 20_000); // and its footer stream
        }
        assertThat(memory.readsWhole("b", "small/x"))
                .as("a file counts with the most its streams read")
                .isTrue();
        for (int i = 10; i < 10 + WasteMemory.FILES_PER_TABLE; i++) {
            memory.smallObjectClosed("b", "small/" + i, 1_000_000, 8_000);
        }
        assertThat(memory.readsWhole("b", "small/x"))
                .as("recent readers read a few KB of each")
                .isFalse();
        assertThat(memory.readsWhole("b", "other/4")).as("another table").isTrue();
        for (int i = 20; i < 20 + WasteMemory.FILES_PER_TABLE; i++) {
            memory.smallObjectClosed("b", "small/" + i, 1_000_000, 1_000_000);
        }
        assertThat(memory.readsWhole("b", "small/x"))
                .as("readers read them whole again")
                .isTrue();
    }
}
