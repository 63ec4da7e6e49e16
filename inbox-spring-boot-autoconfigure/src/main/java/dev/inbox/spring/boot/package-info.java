/**
 * Spring Boot auto-configuration of inbox: {@link dev.inbox.spring.boot.InboxAutoConfiguration}
 * and its {@code inbox.*} properties ({@link dev.inbox.spring.boot.InboxProperties}).
 */
@NullMarked
package dev.inbox.spring.boot;

import org.jspecify.annotations.NullMarked;
