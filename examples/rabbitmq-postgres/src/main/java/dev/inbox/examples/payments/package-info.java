/** The example payments service. */
@NullMarked
package dev.inbox.examples.payments;

import org.jspecify.annotations.NullMarked;
