package dev.inbox.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * What Lambda hands an SQS-triggered function, for its tests: the event an event source mapping
 * builds from messages received from a real SQS server, and a context whose remaining time counts
 * down. Needs {@code aws-lambda-java-core} and {@code aws-lambda-java-events} on the test class path
 * (optional dependencies of this module).
 */
public final class LambdaEvents {

    private LambdaEvents() {}

    /** The event an event source mapping builds from {@code received} (from the queue {@code arn}). */
    public static SQSEvent event(List<Message> received, String arn) {
        List<SQSEvent.SQSMessage> records = new ArrayList<>();
        for (Message m : received) {
            SQSEvent.SQSMessage record = new SQSEvent.SQSMessage();
            record.setMessageId(m.messageId());
            record.setReceiptHandle(m.receiptHandle());
            record.setBody(m.body());
            record.setEventSource("aws:sqs");
            record.setEventSourceArn(arn);
            Map<String, String> system = new HashMap<>();
            m.attributes().forEach((name, value) -> system.put(name.toString(), value));
            record.setAttributes(system);
            Map<String, SQSEvent.MessageAttribute> attributes = new HashMap<>();
            m.messageAttributes().forEach((name, value) -> {
                SQSEvent.MessageAttribute a = new SQSEvent.MessageAttribute();
                a.setDataType(value.dataType());
                a.setStringValue(value.stringValue());
                attributes.put(name, a);
            });
            record.setMessageAttributes(attributes);
            records.add(record);
        }
        SQSEvent event = new SQSEvent();
        event.setRecords(records);
        return event;
    }

    /** A Lambda context with {@code remainingMillis} left now, counting down as Lambda's does. */
    public static Context context(int remainingMillis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(remainingMillis);
        return new Context() {
            @Override
            public String getAwsRequestId() {
                return "test";
            }

            @Override
            public String getLogGroupName() {
                return "test";
            }

            @Override
            public String getLogStreamName() {
                return "test";
            }

            @Override
            public String getFunctionName() {
                return "test";
            }

            @Override
            public String getFunctionVersion() {
                return "$LATEST";
            }

            @Override
            public String getInvokedFunctionArn() {
                return "arn:aws:lambda:us-east-1:000000000000:function:test";
            }

            @Override
            public CognitoIdentity getIdentity() {
                return null;
            }

            @Override
            public ClientContext getClientContext() {
                return null;
            }

            @Override
            public int getRemainingTimeInMillis() {
                return (int) Math.max(0, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()));
            }

            @Override
            public int getMemoryLimitInMB() {
                return 512;
            }

            @Override
            public LambdaLogger getLogger() {
                return null;
            }
        };
    }
}
