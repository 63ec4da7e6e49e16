/** The example orders API. */
@NullMarked
package dev.inbox.examples.httporders;

import org.jspecify.annotations.NullMarked;
