package dev.inbox.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InboxStartupException} anywhere in a failed startup's causes into Spring Boot's
 * "APPLICATION FAILED TO START" box: its description and the action to take. Registered in {@code
 * META-INF/spring.factories}.
 */
public final class InboxFailureAnalyzer extends AbstractFailureAnalyzer<InboxStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InboxStartupException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
