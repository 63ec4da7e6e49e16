package dev.inbox.examples.payments;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * {@code --payments.demo=N}: publishes N payments, each twice (a producer's re-send), waits until
 * the ledger has them, prints what it holds and exits.
 */
@Component
@ConditionalOnProperty("payments.demo")
class Demo implements ApplicationRunner {

    private final RabbitTemplate rabbit;
    private final Ledger ledger;
    private final ConfigurableApplicationContext context;
    private final int payments;
    private final String queue;

    Demo(RabbitTemplate rabbit, Ledger ledger, ConfigurableApplicationContext context, Environment environment) {
        this.rabbit = rabbit;
        this.ledger = ledger;
        this.context = context;
        this.payments = environment.getRequiredProperty("payments.demo", Integer.class);
        this.queue = environment.getRequiredProperty("payments.queue");
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (int copy = 0; copy < 2; copy++) {
            for (int i = 0; i < payments; i++) {
                MessageProperties properties = new MessageProperties();
                properties.setMessageId("pay-" + run + "-" + i);
                rabbit.send(
                        "",
                        queue,
                        new Message(
                                ("acct-" + (i % 7) + ":" + (100 + i)).getBytes(StandardCharsets.UTF_8), properties));
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (count(run)[0] < payments && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(500); // the re-sent copies are acknowledged as duplicates behind the originals
        int[] counts = count(run);
        int posted = counts[0];
        int twice = counts[1];
        System.out.printf(
                "demo: published %d payments twice (%d messages); the ledger holds %d of them, %d more than once%n",
                payments, 2 * payments, posted, twice);
        int code = posted == payments && twice == 0 ? 0 : 1;
        System.exit(SpringApplication.exit(context, () -> code));
    }

    /** How many of the run's payments the ledger holds, and how many of those more than once. */
    private int[] count(String run) {
        int posted = 0;
        int twice = 0;
        for (int i = 0; i < payments; i++) {
            int rows = ledger.rows("pay-" + run + "-" + i);
            posted += rows > 0 ? 1 : 0;
            twice += rows > 1 ? 1 : 0;
        }
        return new int[] {posted, twice};
    }
}
