/**
 * Real servers for tests of inbox stores — ours and yours — found the same way for every backend.
 *
 * <p>{@link dev.inbox.testing.TestServers} resolves PostgreSQL, MySQL/MariaDB and Redis: the
 * endpoint in the backend's environment variable, else the local default if it answers, else a
 * container started with Testcontainers, else a {@link dev.inbox.testing.NoTestServerException}
 * that names all three ways. Nothing is mocked and nothing is skipped.
 *
 * <p>Servers a test must own — to crash, pause or restart them — are started from local binaries:
 * {@link dev.inbox.testing.RedisProcesses} (standalone or a 3-primary Cluster), {@link
 * dev.inbox.testing.LocalPostgres}, {@link dev.inbox.testing.LocalMariadb}, and {@link
 * dev.inbox.testing.Dynalite}, the DynamoDB emulator from the npm registry.
 */
@NullMarked
package dev.inbox.testing;

import org.jspecify.annotations.NullMarked;
