package dev.inbox.tck;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The adapter kit's SQS reference adapter: the simplest correct lease-mode receive loop on the real
 * SQS server (ElasticMQ), following the outcome table, and the ways SQS lets it go wrong ({@link
 * Breakage}) for the kit's self-tests. Each receive's messages are held (visibility renewed every
 * third of the lease, and each claim once made) until each is settled, claimed and worked one by
 * one in order, and the done ones completed together and deleted when the receive ends — the
 * per-receive completion whose done-but-unrecorded window rule A11 looks at. A BUSY message and a claim the store cannot answer
 * are held in place and tried again, never put back (the queue's redrive policy dead-letters after
 * five receives); failed work is released and made visible again after a second.
 */
final class ReferenceSqsHarness implements AdapterHarness {

    /** One thing the reference adapter gets wrong, or nothing. */
    enum Breakage {
        NONE,
        /** Stops renewing a message once its work is done, though it is completed and deleted only when the receive ends. */
        DONE_LEFT_UNRENEWED,
        /** Renews the claims but never extends the messages' visibility while they are worked on. */
        NO_VISIBILITY_EXTENSION,
        /**
         * Deletes a message with the receipt handle of its first receive, kept by message id: once the
         * message was received again (after failed work) that handle is stale, and SQS deletes nothing.
         */
        STALE_RECEIPT_HANDLE,
        /**
         * Deletes each message as its work begins, before the work and its completion (as a consumer
         * that deletes on receipt does): work that never finishes has lost its event.
         */
        DELETES_BEFORE_THE_WORK
    }

    private static final ScheduledExecutorService RENEWALS = Executors.newScheduledThreadPool(2, r -> {
        Thread thread = new Thread(r, "adapter-kit-sqs-reference-renewals");
        thread.setDaemon(true);
        return thread;
    });

    private final AdapterKit kit;
    private final Breakage breakage;
    private final ReferenceStore store = new ReferenceStore(Duration.ofMinutes(1), new HashMap<>());
    private final Inbox inbox;
    private final SqsClient admin = SqsQueues.client();
    private final String queue;
    private final String dead;
    private final AutoCloseable deadReader;
    private final FaultProxy proxy;
    private final int visibilitySeconds;

    ReferenceSqsHarness(AdapterKit kit, Breakage breakage) throws IOException {
        this.kit = kit;
        this.breakage = breakage;
        this.inbox = Inbox.builder(kit.store(store))
                .consumer(kit.consumer())
                .lease(kit.lease())
                .build();
        visibilitySeconds = (int) Math.max(1, kit.lease().toSeconds());
        dead = SqsQueues.create(admin, "inbox-kit-reference-dead", Map.of());
        queue = SqsQueues.create(
                admin,
                "inbox-kit-reference",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(visibilitySeconds),
                        QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(admin, dead, 5)));
        deadReader = SqsQueues.drain(admin, dead, kit::deadLettered);
        InetSocketAddress server = Endpoints.address(SqsServer.endpoint());
        proxy = FaultProxy.start(server.getHostString(), server.getPort());
    }

    @Override
    public Mode mode() {
        return Mode.LEASE;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        SqsQueues.send(admin, queue, payload, AdapterKit.ID_HEADER, id);
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() throws Exception {
        deadReader.close();
        admin.deleteQueue(r -> r.queueUrl(queue));
        admin.deleteQueue(r -> r.queueUrl(dead));
        admin.close();
        proxy.close();
        store.close();
    }

    /** One consumer: its client (through the proxy) and its receive loop. */
    private final class Member implements Running {
        final SqsClient client = SqsQueues.client(Endpoints.via(SqsServer.endpoint(), proxy.host(), proxy.port()));
        final Thread thread = new Thread(this::run, "adapter-kit-sqs-reference");
        /** The receipt handle of each message's first receive ({@link Breakage#STALE_RECEIPT_HANDLE}). */
        final Map<String, String> firstHandles = new ConcurrentHashMap<>();

        volatile boolean stopping;
        volatile boolean crashed;

        Member() {
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (!stopping && !crashed) {
                try {
                    List<Message> received = client.receiveMessage(r -> r.queueUrl(queue)
                                    .maxNumberOfMessages(10)
                                    .waitTimeSeconds(1)
                                    .messageAttributeNames("All"))
                            .messages();
                    if (!received.isEmpty()) {
                        new Receive(received).handle();
                    }
                } catch (RuntimeException unreachable) {
                    pause(kit.backoff()); // the proxy cut, or the client closed by a crash
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopping = true;
            thread.join(60_000);
            client.close();
        }

        @Override
        public void crash() {
            crashed = true;
            client.close(); // nothing more is deleted or made visible
        }

        @Override
        public void cutConnection() throws IOException {
            proxy.refuse();
        }

        @Override
        public void restoreConnection() throws IOException {
            proxy.accept();
        }

        /** One receive: its messages, their claims, what is held and what is done. */
        private final class Receive {
            final List<Message> messages;
            final Claim[] claims;
            final String[] ids;
            final Set<Integer> held = ConcurrentHashMap.newKeySet();
            final List<Integer> delete = new ArrayList<>();
            final List<Claim> done = new ArrayList<>();

            Receive(List<Message> messages) {
                this.messages = messages;
                this.claims = new Claim[messages.size()];
                this.ids = new String[messages.size()];
                if (breakage == Breakage.STALE_RECEIPT_HANDLE) {
                    messages.forEach(m -> firstHandles.putIfAbsent(m.messageId(), m.receiptHandle()));
                }
            }

            void handle() {
                List<Integer> keyed = new ArrayList<>();
                for (int i = 0; i < messages.size(); i++) {
                    ids[i] = idOf(messages.get(i));
                    if (ids[i] == null) {
                        deadLetter(messages.get(i));
                    } else {
                        keyed.add(i);
                        held.add(i);
                    }
                }
                if (keyed.isEmpty()) {
                    return;
                }
                ScheduledFuture<?> renewing = RENEWALS.scheduleWithFixedDelay(
                        this::renew, kit.lease().toMillis() / 3, kit.lease().toMillis() / 3, TimeUnit.MILLISECONDS);
                try {
                    if (!claimAll(keyed)) {
                        keyed.forEach(i -> putBack(i, 0)); // stopping with the store down
                        return;
                    }
                    for (int i : keyed) {
                        work(i);
                    }
                } finally {
                    renewing.cancel(false);
                    held.clear();
                    settle();
                }
            }

            private @Nullable String idOf(Message message) {
                MessageAttributeValue header = message.messageAttributes().get(AdapterKit.ID_HEADER);
                try {
                    String id = kit.keyOf(header == null ? null : header.stringValue(), message.body());
                    if (id != null) {
                        InboxKey.of(kit.consumer(), id);
                    }
                    return id;
                } catch (RuntimeException invalid) {
                    return null;
                }
            }

            private void deadLetter(Message message) {
                client.sendMessage(r -> r.queueUrl(dead).messageBody(message.body()));
                client.deleteMessage(r -> r.queueUrl(queue).receiptHandle(message.receiptHandle()));
            }

            /**
             * Claims the keyed messages in one call (a copy of an event repeated in the receive is
             * then a DUPLICATE, not BUSY against this receive's own claim), tried again while the store
             * cannot answer; false when stopping first.
             */
            private boolean claimAll(List<Integer> keyed) {
                List<String> keys = keyed.stream().map(i -> ids[i]).toList();
                while (!stopping && !crashed) {
                    try {
                        List<Claim> claimed = inbox.claims().claimAll(keys);
                        for (int k = 0; k < keyed.size(); k++) {
                            claims[keyed.get(k)] = claimed.get(k);
                        }
                        return true;
                    } catch (InboxStoreException storeDown) {
                        pause(kit.backoff());
                    }
                }
                return false;
            }

            /** Works one message, held and claimed again while another delivery holds its event. */
            private void work(int i) {
                if (stopping) {
                    if (claims[i].isAcquired()) {
                        claims[i].release();
                    }
                    putBack(i, 0); // not begun: to the next consumer
                    return;
                }
                Claim claim = claims[i];
                while (claim != null && claim.status() == ClaimStatus.BUSY && !stopping) {
                    pause(kit.backoff());
                    claim = claim(i);
                }
                if (claim == null || claim.status() == ClaimStatus.BUSY) {
                    putBack(i, 0); // stopping: to the next consumer
                    return;
                }
                if (claim.status() == ClaimStatus.DUPLICATE) {
                    delete.add(i);
                    return;
                }
                if (breakage == Breakage.DELETES_BEFORE_THE_WORK) {
                    try {
                        client.deleteMessage(r ->
                                r.queueUrl(queue).receiptHandle(messages.get(i).receiptHandle()));
                    } catch (RuntimeException gone) {
                        // deleted when the receive ends, as any other
                    }
                }
                try {
                    kit.apply(messages.get(i).body(), null);
                } catch (Exception | Error failed) {
                    claim.release();
                    putBack(i, 1);
                    return;
                }
                done.add(claim);
                delete.add(i);
                if (breakage == Breakage.DONE_LEFT_UNRENEWED) {
                    held.remove(i);
                }
            }

            /** Claims message {@code i}, held and tried again while the store cannot answer; null when stopping. */
            private @Nullable Claim claim(int i) {
                while (!stopping && !crashed) {
                    try {
                        claims[i] = inbox.claims().claimAll(List.of(ids[i])).get(0);
                        return claims[i];
                    } catch (InboxStoreException storeDown) {
                        pause(kit.backoff());
                    }
                }
                return null;
            }

            private void renew() {
                for (int i : held) {
                    Claim claim = claims[i];
                    try {
                        if (claim != null && claim.isAcquired()) {
                            claim.renew();
                        }
                        if (breakage != Breakage.NO_VISIBILITY_EXTENSION) {
                            changeVisibility(i, visibilitySeconds);
                        }
                    } catch (RuntimeException failed) {
                        // tried again at the next tick
                    }
                }
            }

            private void putBack(int i, int seconds) {
                held.remove(i);
                try {
                    changeVisibility(i, seconds);
                } catch (RuntimeException gone) {
                    // it comes back after its visibility timeout
                }
            }

            private void changeVisibility(int i, int seconds) {
                client.changeMessageVisibility(r -> r.queueUrl(queue)
                        .receiptHandle(messages.get(i).receiptHandle())
                        .visibilityTimeout(seconds));
            }

            /** Completes what was done in one call, then deletes it and the duplicates. */
            private void settle() {
                try {
                    if (!done.isEmpty()) {
                        inbox.claims().completeAll(done);
                    }
                } catch (InboxStoreException notRecorded) {
                    // the work ran: deleted all the same, as the outcome table says
                }
                for (int i : delete) {
                    Message message = messages.get(i);
                    String handle = breakage == Breakage.STALE_RECEIPT_HANDLE
                            ? firstHandles.getOrDefault(message.messageId(), message.receiptHandle())
                            : message.receiptHandle();
                    try {
                        client.deleteMessage(r -> r.queueUrl(queue).receiptHandle(handle));
                    } catch (RuntimeException gone) {
                        // a crash, or a receipt handle gone stale: the redelivery is a duplicate
                    }
                }
            }
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(Math.max(1, duration.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
