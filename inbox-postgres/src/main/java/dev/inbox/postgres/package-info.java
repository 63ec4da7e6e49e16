/**
 * The PostgreSQL store: {@link dev.inbox.postgres.PostgresInboxStore} (lease and transactional
 * modes) and {@link dev.inbox.postgres.PostgresSequenceGuard}.
 */
@NullMarked
package dev.inbox.postgres;

import org.jspecify.annotations.NullMarked;
