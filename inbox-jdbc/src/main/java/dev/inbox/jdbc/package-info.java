/**
 * The transactional mode of JDBC stores: the claim joins the caller's transaction, so the dedup
 * record and the business write commit or roll back together.
 */
@NullMarked
package dev.inbox.jdbc;

import org.jspecify.annotations.NullMarked;
