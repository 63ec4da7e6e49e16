package dev.inbox.examples.payments;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** The business write: one ledger row per payment, in the listener's transaction. */
@Component
public class Ledger {

    private final JdbcTemplate jdbc;

    Ledger(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Posts {@code cents} to {@code account} for payment {@code id}. */
    public void post(String id, String account, long cents) {
        jdbc.update("INSERT INTO ledger (payment_id, account, cents) VALUES (?, ?, ?)", id, account, cents);
    }

    /** How many ledger rows payment {@code id} has: one, once it was processed. */
    public int rows(String id) {
        Integer rows = jdbc.queryForObject("SELECT count(*) FROM ledger WHERE payment_id = ?", Integer.class, id);
        return rows == null ? 0 : rows;
    }
}
