package dev.inbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClaimShapeTest {

    @Test
    void startsWithTheInsert_whileMostKeysAreNew() {
        ClaimShape shape = new ClaimShape();
        assertThat(shape.writeFirst()).isTrue();
        for (int i = 0; i < 600; i++) {
            shape.found(i % 6 != 0); // one claim in six finds a record
        }
        assertThat(shape.writeFirst()).as("one conflict in six").isTrue();
    }

    @Test
    void turnsToTheReadBack_whenDuplicatesAreCommon_andBackWhenTheyPass() {
        ClaimShape shape = new ClaimShape();
        for (int i = 0; i < 9; i++) {
            shape.found(false);
        }
        assertThat(shape.writeFirst()).as("after nine duplicates in a row").isFalse();
        for (int i = 0; i < 600; i++) {
            shape.found(i % 3 != 0); // one claim in three finds a record
        }
        assertThat(shape.writeFirst()).as("one conflict in three").isFalse();
        for (int i = 0; i < 64; i++) {
            shape.found(true);
        }
        assertThat(shape.writeFirst()).as("after a run of new keys").isTrue();
    }
}
