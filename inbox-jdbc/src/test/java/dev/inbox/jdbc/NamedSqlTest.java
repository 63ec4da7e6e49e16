package dev.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamedSqlTest {

    @Test
    void names_becomePlaceholders_inOrder_andARepeatedNameAppearsTwice() {
        NamedSql sql = NamedSql.of("UPDATE t SET a = :value WHERE k = :key AND v <> :value");
        assertThat(sql.sql()).isEqualTo("UPDATE t SET a = ? WHERE k = ? AND v <> ?");
        assertThat(sql.names()).containsExactly("value", "key", "value");
    }

    @Test
    void castsAndQuotedLiterals_areNotParameters() {
        NamedSql sql = NamedSql.of(
                "SELECT :ids::text[], NULL::smallint, ':not_a_name', 'it''s :also_not' FROM t WHERE x = :x_1");
        assertThat(sql.sql())
                .isEqualTo("SELECT ?::text[], NULL::smallint, ':not_a_name', 'it''s :also_not' FROM t WHERE x = ?");
        assertThat(sql.names()).containsExactly("ids", "x_1");
    }

    @Test
    void aStatementWithoutText_isRejected() {
        assertThatThrownBy(() -> NamedSql.of(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aParameterWithoutValue_failsBeforeTheStatementIsSent_namingIt() {
        NamedSql sql = NamedSql.of("SELECT :missing, :present");
        SqlParams params = SqlParams.create().text("present", "x");
        assertThatThrownBy(() -> sql.bind(null, params))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no value for SQL parameter :missing");
    }
}
