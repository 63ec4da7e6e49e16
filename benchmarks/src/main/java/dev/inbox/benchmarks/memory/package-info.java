/** Heap cost of the in-memory store, measured as heap after GC. */
@NullMarked
package dev.inbox.benchmarks.memory;

import org.jspecify.annotations.NullMarked;
