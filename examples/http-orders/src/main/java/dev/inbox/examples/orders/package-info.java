/** The example orders API. */
@NullMarked
package dev.inbox.examples.orders;

import org.jspecify.annotations.NullMarked;
