/**
 * A store of your own in the benchmarks: the JMH claim benchmark and the storm build it from the
 * name of a {@code Supplier<InboxStore>} class on the class path.
 */
@NullMarked
package dev.inbox.benchmarks.custom;

import org.jspecify.annotations.NullMarked;
