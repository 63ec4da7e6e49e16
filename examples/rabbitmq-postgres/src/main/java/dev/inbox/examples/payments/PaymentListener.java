package dev.inbox.examples.payments;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;

/** Posts each payment message ({@code <account>:<amount in cents>}) to the ledger. */
@Component
class PaymentListener {

    private final Ledger ledger;

    PaymentListener(Ledger ledger) {
        this.ledger = ledger;
    }

    @RabbitListener(id = "payments", queues = "${payments.queue}")
    void on(String payment, @org.springframework.messaging.handler.annotation.Header("amqp_messageId") String id) {
        String[] parts = payment.split(":", 2);
        ledger.post(id, parts[0], Long.parseLong(parts[1]));
    }
}
