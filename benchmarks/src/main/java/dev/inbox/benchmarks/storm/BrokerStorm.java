package dev.inbox.benchmarks.storm;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A storm through a real broker: the producer publishes every event 1 + d times (a retrying
 * producer's re-sends, under the event's own id, at later positions in the log or queue), members
 * consume through the inbox adapter, a crash kills a member mid-work (nothing committed or
 * acknowledged) and a new member joins in its place, and one extra member joins and leaves
 * mid-run. The target's ledger then gives the verdict, as for the simulated storm.
 */
final class BrokerStorm {

    private static final long DEADLINE_NANOS = TimeUnit.MINUTES.toNanos(10);

    private BrokerStorm() {}

    static StormReport run(
            StormConfig config, Storm storm, StormTarget target, BrokerDriver broker, Consumer<String> progress)
            throws Exception {
        Storm.Counters counters = storm.counters();
        List<Integer> events = plan(config);
        if (target instanceof LeaseTarget lease) {
            lease.chargeUnrecordedTo(storm::cause); // a lease lost mid-work: the adapters report it without the event
        }
        counters.deliveries.add(events.size());
        long start = System.nanoTime();
        broker.publish(events);
        BrokerDriver.Applier applier = applier(storm, target);
        List<BrokerDriver.Member> members = new ArrayList<>();
        for (int c = 0; c < config.consumers(); c++) {
            members.add(broker.join(applier));
        }
        BrokerDriver.Member extra = null;
        boolean extraLeft = false;
        boolean finished = false;
        long nextCheck = 0;
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        try {
            while (System.nanoTime() - start < DEADLINE_NANOS) {
                Thread.sleep(20);
                for (int i = 0; i < members.size(); i++) {
                    if (!members.get(i).alive()) {
                        members.set(i, broker.join(applier)); // a crashed member is replaced
                    }
                }
                long applied = counters.processed.sum();
                if (extra == null && applied >= config.events() / 3) {
                    extra = broker.join(applier); // a member joins mid-run: the group rebalances
                } else if (extra != null && !extraLeft && applied >= 2L * config.events() / 3) {
                    extra.leave(); // and leaves again
                    extraLeft = true;
                }
                long now = System.nanoTime();
                if (now - nextCheck >= 0) {
                    if (broker.drained()) {
                        finished = true;
                        break;
                    }
                    nextCheck = now + TimeUnit.MILLISECONDS.toNanos(250);
                }
                if (now - nextProgress >= 0) {
                    progress.accept(String.format(
                            Locale.ROOT,
                            "storm via %s: %,d of %,d records applied, %,d crashes, %.0f s",
                            broker.describe(),
                            applied,
                            events.size(),
                            counters.crashesBeforeWork.sum() + counters.crashesAfterWork.sum(),
                            (now - start) / 1e9));
                    nextProgress = now + TimeUnit.SECONDS.toNanos(2);
                }
            }
        } finally {
            members.forEach(BrokerDriver.Member::leave);
            if (extra != null) {
                extra.leave();
            }
        }
        long[] duplicatesAndBusy = broker.duplicatesAndBusy();
        counters.duplicates.add(duplicatesAndBusy[0]);
        counters.busy.add(duplicatesAndBusy[1]);
        return storm.report(target, System.nanoTime() - start, finished);
    }

    /**
     * Every event once, in order, and 0..max-redeliveries re-sends of it placed later, as a producer
     * retrying after a timeout would write them.
     */
    static List<Integer> plan(StormConfig config) {
        Random random = new Random(config.seed());
        record Copy(int event, double position) {}
        List<Copy> copies = new ArrayList<>();
        for (int event = 0; event < config.events(); event++) {
            copies.add(new Copy(event, event));
            int resends = random.nextInt(config.maxRedeliveries() + 1);
            for (int r = 0; r < resends; r++) {
                copies.add(new Copy(event, event + 0.5 + random.nextDouble() * Math.max(1, config.events() / 10.0)));
            }
        }
        copies.sort(Comparator.comparingDouble(Copy::position));
        List<Integer> events = new ArrayList<>(copies.size());
        copies.forEach(copy -> events.add(copy.event()));
        return events;
    }

    /** The work: the target's ledger write, with the storm's faults drawn per delivery. */
    private static BrokerDriver.Applier applier(Storm storm, StormTarget target) {
        Storm.Counters counters = storm.counters();
        return new BrokerDriver.Applier() {
            @Override
            public void apply(int event, @Nullable Connection connection) throws Exception {
                applyOnce(storm, target, counters, event, connection);
            }

            @Override
            public void crashedBeforeRecording(int event) {
                storm.cause(event);
            }
        };
    }

    private static void applyOnce(
            Storm storm, StormTarget target, Storm.Counters counters, int event, @Nullable Connection connection)
            throws Exception {
        Fault fault = storm.drawFault(event);
        if (fault == Fault.CRASH_BEFORE_WORK) {
            counters.crashesBeforeWork.increment();
            throw new BrokerDriver.ConsumerCrash();
        }
        if (fault == Fault.FAIL_WORK) {
            counters.failures.increment();
            throw new SimulatedFailure();
        }
        if (target instanceof TransactionalTarget transactional) {
            transactional.record(connection, event);
        } else {
            ((LeaseTarget) target).record(event);
        }
        if (fault == Fault.CRASH_AFTER_WORK) {
            counters.crashesAfterWork.increment();
            if (!target.closesCrashWindow()) {
                storm.cause(event); // applied, and the claim left to its lease
            }
            throw new BrokerDriver.ConsumerCrash();
        }
        counters.processed.increment();
    }
}
