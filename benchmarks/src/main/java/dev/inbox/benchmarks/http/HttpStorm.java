package dev.inbox.benchmarks.http;

import dev.inbox.benchmarks.storm.LedgerCheck;
import dev.inbox.benchmarks.storm.MemberJvm;
import dev.inbox.benchmarks.storm.StormArgs;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.postgres.PostgresInboxStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The HTTP storm: client threads {@code POST} requests with an {@code Idempotency-Key} to {@link
 * HttpStormApp} — a JVM of its own — retrying each on a broken connection, a timeout, {@code 409}
 * (in flight) and {@code 503}, some sent twice at once; meanwhile the application is killed with
 * {@code SIGKILL} {@code --kills} times mid-request, each time at an even step of the clients'
 * progress, and started again. At the end every key is sent once more, and the ledger the handler
 * writes is read back independently (plain JDBC) and checked:
 *
 * <ul>
 *   <li>each key's effect: one ledger row ({@code transactional} mode); in {@code lease} mode a key
 *       may have more, each earlier one written by a process that was then killed — an extra
 *       application the mode allows, never one by the process still running;
 *   <li>no answer without its effect: every {@code 201}'s {@code transfer} is a row of the ledger
 *       for that key;
 *   <li>every answer a key got (the first, the retries', the duplicate's and the final one) has
 *       the same status, body and {@code Location}.
 * </ul>
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.http.HttpStorm \
 *     [--mode transactional|lease] [--requests 2000] [--clients 8] [--kills 10] \
 *     [--duplicate-rate 0.1] [--work-ms 20] [--lease-ms 2000] [--jdbc-url URL] > result.json
 * }</pre>
 *
 * The JSON's {@code passed} and {@code verdict} say whether the checks held; the exit code is 1
 * when they did not.
 */
public final class HttpStorm {

    static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private static final byte[] NO_BODY = new byte[0];

    private final Map<String, String> args;
    private final boolean transactional;
    private final int requests;
    private final int clients;
    private final int kills;
    private final double duplicateRate;
    private final int workMs;
    private final String jdbcUrl;
    private final String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String table = "http_storm_" + run;
    private final Map<String, List<Answer>> answers = new ConcurrentHashMap<>();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong brokenConnections = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong unavailable = new AtomicLong();
    private final AtomicLong serverErrors = new AtomicLong();
    private final AtomicLong duplicateSends = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final List<String> unexpected = new ArrayList<>();
    private int port;
    private @Nullable MemberJvm app;
    private int incarnation;

    /** One answer a client got: its status, body, {@code Location}, and whether it was a replay. */
    record Answer(int status, String body, @Nullable String location, boolean replay) {
        boolean sameAs(Answer other) {
            return status == other.status && body.equals(other.body) && Objects.equals(location, other.location);
        }

        /** The ledger row the answer names, from its body {@code {"transfer":<id>,...}}. */
        long transfer() {
            int start = body.indexOf("\"transfer\":") + "\"transfer\":".length();
            int end = body.indexOf(',', start);
            return Long.parseLong(body.substring(start, end));
        }
    }

    private HttpStorm(Map<String, String> args) {
        this.args = args;
        this.transactional = StormArgs.transactional(args.getOrDefault("mode", "transactional"));
        this.requests = StormArgs.number(args, "requests", 2000, 1);
        this.clients = StormArgs.number(args, "clients", 8, 1);
        this.kills = StormArgs.number(args, "kills", 10, 0);
        this.duplicateRate = Double.parseDouble(args.getOrDefault("duplicate-rate", "0.1"));
        if (!(duplicateRate >= 0 && duplicateRate <= 1)) {
            throw new IllegalArgumentException("--duplicate-rate must be between 0 and 1");
        }
        this.workMs = StormArgs.number(args, "work-ms", 20, 1);
        this.jdbcUrl = args.getOrDefault("jdbc-url", DEFAULT_JDBC_URL);
    }

    public static void main(String[] argv) throws Exception {
        StormArgs.print(run(argv));
    }

    /** Runs the storm with {@code argv}'s options; the result as {@link #main} prints it. */
    public static Map<String, Object> run(String... argv) throws Exception {
        return new HttpStorm(StormArgs.parse(argv)).storm();
    }

    private Map<String, Object> storm() throws Exception {
        System.setProperty("sun.net.http.retryPost", "false"); // our retries only, each counted
        prepare();
        long started = System.nanoTime();
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = Files.createTempFile("inbox-http-storm-" + run, ".log");
        try {
            start(log);
            ExecutorService senders = Executors.newFixedThreadPool(clients * 2);
            try {
                AtomicInteger next = new AtomicInteger();
                List<Future<?>> work = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    work.add(senders.submit(() -> {
                        for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                            send(i, senders);
                            finished.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (int k = 1; k <= kills; k++) {
                    long step = (long) requests * k / (kills + 1);
                    while (finished.get() < step && !allDone(work)) {
                        Thread.sleep(2);
                    }
                    Thread.sleep(ThreadLocalRandom.current().nextInt(workMs + 1)); // mid-request
                    kill();
                    start(log);
                }
                for (Future<?> future : work) {
                    future.get();
                }
                // Every key once more: the answer must be the one the key first got, as a replay.
                List<Future<?>> last = new ArrayList<>();
                for (int i = 0; i < requests; i++) {
                    int key = i;
                    last.add(senders.submit(() -> sendUntilAnswered(key)));
                }
                for (Future<?> future : last) {
                    future.get();
                }
            } finally {
                senders.shutdownNow();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            return check(seconds);
        } finally {
            stop();
            try (Connection connection = DriverManager.getConnection(jdbcUrl);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
            Files.deleteIfExists(log);
        }
    }

    private static boolean allDone(List<Future<?>> work) {
        return work.stream().allMatch(Future::isDone);
    }

    /** The ledger table, and the inbox's own. */
    private void prepare() throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, idem_key TEXT NOT NULL,"
                    + " incarnation INT NOT NULL, body TEXT NOT NULL)");
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        PostgresInboxStore.builder(dataSource).build().createSchemaIfMissing();
    }

    /** Key {@code i} until it has an answer; sometimes a second send of it at the same time. */
    private void send(int i, ExecutorService senders) throws Exception {
        Future<?> twin = null;
        if (ThreadLocalRandom.current().nextDouble() < duplicateRate) {
            duplicateSends.incrementAndGet();
            twin = senders.submit(() -> sendUntilAnswered(i));
        }
        sendUntilAnswered(i);
        if (twin != null) {
            twin.get();
        }
    }

    private Void sendUntilAnswered(int i) throws InterruptedException {
        String key = run + "-" + i;
        byte[] body =
                ("{\"amount\":" + (i % 997 + 1) + ",\"to\":\"account-" + i + "\"}").getBytes(StandardCharsets.UTF_8);
        while (true) {
            attempts.incrementAndGet();
            Answer answer;
            try {
                answer = post(key, body);
            } catch (IOException e) {
                brokenConnections.incrementAndGet(); // killed mid-request, or not started again yet
                Thread.sleep(20 + ThreadLocalRandom.current().nextInt(80));
                continue;
            }
            switch (answer.status()) {
                case 201 -> {
                    if (answer.replay()) {
                        replayed.incrementAndGet();
                    }
                    answers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                            .add(answer);
                    return null;
                }
                case 409 -> inFlight.incrementAndGet();
                case 503 -> unavailable.incrementAndGet();
                default -> {
                    if (answer.status() >= 500) {
                        serverErrors.incrementAndGet();
                    } else {
                        synchronized (unexpected) {
                            unexpected.add(key + ": " + answer.status() + " " + answer.body());
                        }
                        return null;
                    }
                }
            }
            Thread.sleep(20 + ThreadLocalRandom.current().nextInt(80));
        }
    }

    private Answer post(String key, byte[] body) throws IOException {
        HttpURLConnection connection = (HttpURLConnection)
                URI.create("http://127.0.0.1:" + port + "/transfers").toURL().openConnection();
        connection.setConnectTimeout(2_000);
        connection.setReadTimeout(10_000);
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        connection.setFixedLengthStreamingMode(body.length);
        connection.setRequestProperty("Content-Type", "application/json");
        connection.setRequestProperty(IdempotentRequests.HEADER, key);
        try (OutputStream out = connection.getOutputStream()) {
            out.write(body);
        }
        int status = connection.getResponseCode();
        byte[] read;
        try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
            read = in == null ? NO_BODY : in.readAllBytes();
        }
        return new Answer(
                status,
                new String(read, StandardCharsets.UTF_8),
                connection.getHeaderField("Location"),
                "true".equals(connection.getHeaderField("Idempotent-Replayed")));
    }

    /** Starts the next incarnation of the application and waits until it serves. */
    private void start(Path log) throws IOException, InterruptedException {
        incarnation++;
        MemberJvm started = MemberJvm.start(
                HttpStormApp.class,
                log,
                List.of(
                        "--port",
                        Integer.toString(port),
                        "--table",
                        table,
                        "--consumer",
                        "http-storm-" + run,
                        "--mode",
                        transactional ? "transactional" : "lease",
                        "--work-ms",
                        Integer.toString(workMs),
                        "--lease-ms",
                        args.getOrDefault("lease-ms", "2000"),
                        "--incarnation",
                        Integer.toString(incarnation),
                        "--jdbc-url",
                        jdbcUrl));
        app = started;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!ready()) {
            if (!started.alive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the application (incarnation " + incarnation + ") did not start"
                        + (started.alive() ? " within 60 s" : ", it exited with " + started.exitValue())
                        + "; its output:\n" + Files.readString(log));
            }
            Thread.sleep(25);
        }
    }

    private boolean ready() {
        try {
            HttpURLConnection connection = (HttpURLConnection)
                    URI.create("http://127.0.0.1:" + port + "/ready").toURL().openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(2_000);
            return connection.getResponseCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL: no shutdown hook runs, the database sees the connections drop. */
    private void kill() throws InterruptedException {
        Objects.requireNonNull(app).kill();
    }

    private void stop() throws InterruptedException {
        if (app != null && app.alive()) {
            app.kill();
        }
    }

    private Map<String, Object> check(double seconds) throws SQLException {
        Map<String, List<long[]>> ledger = new LinkedHashMap<>(); // key -> [id, incarnation] by id
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT idem_key, id, incarnation FROM " + table + " ORDER BY id")) {
            while (rows.next()) {
                ledger.computeIfAbsent(rows.getString(1), k -> new ArrayList<>())
                        .add(new long[] {rows.getLong(2), rows.getInt(3)});
            }
        }
        LedgerCheck check = new LedgerCheck(incarnation); // every incarnation but the last was killed
        long answerWithoutEffect = 0;
        long answersDiffering = 0;
        for (int i = 0; i < requests; i++) {
            String key = run + "-" + i;
            List<long[]> rows = ledger.getOrDefault(key, List.of());
            List<Answer> got = answers.getOrDefault(key, List.of());
            check.add(key, rows.stream().map(row -> (int) row[1]).toList());
            for (Answer answer : got) {
                if (!answer.sameAs(got.get(0))) {
                    answersDiffering++;
                    check.example(key + " answered " + got.get(0) + " and then " + answer);
                }
                long transfer = answer.transfer();
                if (rows.stream().noneMatch(row -> row[0] == transfer)) {
                    answerWithoutEffect++;
                    check.example(key + " answered transfer " + transfer + ", which the ledger does not hold");
                }
            }
        }
        long strayRows =
                ledger.keySet().stream().filter(k -> !answers.containsKey(k)).count();
        boolean passed = unexpected.isEmpty()
                && answerWithoutEffect == 0
                && answersDiffering == 0
                && strayRows == 0
                && check.passed(transactional);
        Map<String, Object> out = StormArgs.header("HttpStorm", args);
        out.put("store", "postgres (" + (transactional ? "transactional" : "lease") + " mode)");
        out.put("requests", requests);
        out.put("clients", clients);
        out.put("kills", kills);
        out.put("incarnations", incarnation);
        out.put("attempts", attempts.get());
        out.put("brokenConnections", brokenConnections.get());
        out.put("inFlight409", inFlight.get());
        out.put("unavailable503", unavailable.get());
        out.put("serverErrors5xx", serverErrors.get());
        out.put("duplicateSends", duplicateSends.get());
        out.put("replayedAnswers", replayed.get());
        check.into(out);
        out.put("answersWithoutEffect", answerWithoutEffect);
        out.put("answersDiffering", answersDiffering);
        out.put("ledgerRowsOfUnsentKeys", strayRows);
        out.put("unexpectedAnswers", List.copyOf(unexpected));
        out.put("examples", check.examples());
        out.put("seconds", Math.round(seconds * 10) / 10.0);
        out.put("passed", passed);
        out.put("verdict", verdict(passed, check.extraApplications()));
        return out;
    }

    private String verdict(boolean passed, long extraApplications) {
        if (!passed) {
            return "FAILED: see the counts and examples";
        }
        String through = " through " + kills + " SIGKILLs";
        if (transactional) {
            return "EXACTLY-ONCE: every request's effect applied once, every answer of a key identical," + through;
        }
        return "AT-LEAST-ONCE: " + extraApplications + " extra application(s), each by a process killed before"
                + " its response was kept; none lost, every answer of a key identical," + through;
    }
}
