/** The operator's command line, {@code inbox}: see {@link dev.inbox.cli.InboxCli}. */
@NullMarked
package dev.inbox.cli;

import org.jspecify.annotations.NullMarked;
