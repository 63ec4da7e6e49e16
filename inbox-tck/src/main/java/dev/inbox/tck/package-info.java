/**
 * The inbox compatibility kit: abstract JUnit 5 contract classes that a store's test extends.
 *
 * <ul>
 *   <li>{@link dev.inbox.tck.InboxStoreContract}: every store (claims, ownership, retention,
 *       batches, bad input, lifecycle);
 *   <li>{@link dev.inbox.tck.SequenceGuardContract}: stores that offer a sequence guard;
 *   <li>{@link dev.inbox.tck.TransactionalStoreContract}: JDBC stores with a transactional mode;
 *   <li>{@link dev.inbox.tck.StoreFailureContract}: stores that talk to a server over a network.
 * </ul>
 *
 * <p>Each test's display name starts with the id of the {@link dev.inbox.tck.TckRule} it verifies.
 */
@NullMarked
package dev.inbox.tck;

import org.jspecify.annotations.NullMarked;
