/**
 * Deriving a dedup key when the producer sends none: broker-native ids, unambiguous business
 * keys, and content hashes over RFC 8785 canonical JSON.
 */
@NullMarked
package dev.inbox.keys;

import org.jspecify.annotations.NullMarked;
