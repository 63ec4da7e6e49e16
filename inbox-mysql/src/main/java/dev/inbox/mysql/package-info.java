/**
 * The MySQL and MariaDB store: {@link dev.inbox.mysql.MysqlInboxStore} (lease and transactional
 * modes) and {@link dev.inbox.mysql.MysqlSequenceGuard}.
 */
@NullMarked
package dev.inbox.mysql;

import org.jspecify.annotations.NullMarked;
