package io.rangefetch.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TableKeysTest {

    @Test
    void aKeysTableIsItsFolderLessItsPartitionFolders() {
        assertThat(TableKeys.table("big/p=2/q=3/big.parquet")).isEqualTo("big");
        assertThat(TableKeys.table("w/db/t/data/day=1/f.parquet")).isEqualTo("w/db/t/data");
        assertThat(TableKeys.table("tpch/lineitem/lineitem.1.parquet")).isEqualTo("tpch/lineitem");
        assertThat(TableKeys.table("p=1/f.parquet")).isEmpty();
        assertThat(TableKeys.table("f.parquet")).isEmpty();
        assertThat(TableKeys.table("a/b=c/d/f"))
                .as("only the folders at the end")
                .isEqualTo("a/b=c/d");
    }
}
