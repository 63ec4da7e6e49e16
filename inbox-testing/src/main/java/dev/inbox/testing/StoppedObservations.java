package dev.inbox.testing;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link ObservationRegistry} that remembers every observation stopped in it, in the order they
 * stopped — for tests that check which observations a consumer made and how they nest (an
 * observation that was started but never stopped is not among them, so a leak shows as a missing
 * one).
 */
public final class StoppedObservations {

    private final ObservationRegistry registry = ObservationRegistry.create();
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    /** A registry whose stopped observations are kept. */
    public StoppedObservations() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
    }

    /** The registry to give the code under test. */
    public ObservationRegistry registry() {
        return registry;
    }

    /** The stopped observations named {@code name}, in the order they stopped. */
    public List<Observation.Context> named(String name) {
        return stopped.stream().filter(c -> name.equals(c.getName())).toList();
    }

    /** The first stopped observation named {@code name}; an {@link AssertionError} naming those seen if none. */
    public Observation.Context first(String name) {
        List<Observation.Context> found = named(name);
        if (found.isEmpty()) {
            throw new AssertionError("no observation " + name + " among " + names());
        }
        return found.get(0);
    }

    /**
     * Checks that exactly {@code count} observations named {@code child} stopped, each a child of a
     * stopped observation named {@code parent}.
     *
     * @throws AssertionError naming what was seen otherwise
     */
    public void assertEachNestedUnder(String parent, String child, int count) {
        List<Observation.Context> children = named(child);
        if (children.size() != count) {
            throw new AssertionError("expected " + count + " observations " + child + ", found " + children.size()
                    + " among " + names());
        }
        List<Observation.Context> parents = named(parent);
        for (Observation.Context context : children) {
            io.micrometer.observation.ObservationView parentObservation = context.getParentObservation();
            if (parentObservation == null || !parents.contains(parentObservation.getContextView())) {
                throw new AssertionError(child + " is not inside a " + parent + " observation: its parent is "
                        + (parentObservation == null
                                ? "none"
                                : parentObservation.getContextView().getName()));
            }
        }
    }

    /** The names of every stopped observation, in the order they stopped. */
    public List<String> names() {
        return stopped.stream().map(Observation.Context::getName).toList();
    }
}
