package dev.inbox.benchmarks.storm;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code --name value} options of the process storms ({@link ShareStorm}, {@code HttpStorm}) and their members. */
public final class StormArgs {

    private StormArgs() {}

    /**
     * {@code argv} as an ordered map of option names (without {@code --}) to values.
     *
     * @throws IllegalArgumentException if {@code argv} is not pairs of {@code --name value}
     */
    public static Map<String, String> parse(String[] argv) {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--") || i + 1 == argv.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        return args;
    }

    /**
     * Whether {@code --mode} names transactional mode.
     *
     * @throws IllegalArgumentException unless it is {@code transactional} or {@code lease}
     */
    public static boolean transactional(String mode) {
        return switch (mode) {
            case "transactional" -> true;
            case "lease" -> false;
            default -> throw new IllegalArgumentException("--mode must be transactional or lease, not " + mode);
        };
    }

    /**
     * Option {@code name}'s value.
     *
     * @throws IllegalArgumentException if it is missing
     */
    public static String required(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    /**
     * Option {@code name}'s value as a whole number of at least {@code min}, {@code fallback} when absent.
     *
     * @throws IllegalArgumentException if it is not a number or less than {@code min}
     */
    public static int number(Map<String, String> args, String name, int fallback, int min) {
        String value = args.get(name);
        if (value == null) {
            return fallback;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, not " + value, e);
        }
        if (parsed < min) {
            throw new IllegalArgumentException("--" + name + " must be at least " + min + ", not " + value);
        }
        return parsed;
    }

    /**
     * A table name given as an option: plain lower-case SQL, safe to put into a statement.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static String tableName(String table) {
        if (!table.matches("[a-z_][a-z0-9_]{0,40}")) {
            throw new IllegalArgumentException("a table name must be plain lower-case SQL, not " + table);
        }
        return table;
    }

    /** The head of a process storm's result: the command as given, when it finished, the JVM and the CPUs. */
    public static Map<String, Object> header(String tool, Map<String, String> args) {
        StringBuilder command = new StringBuilder(tool);
        args.forEach((k, v) -> command.append(" --").append(k).append(' ').append(v));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("command", command.toString());
        out.put("finished", Instant.now().toString());
        out.put("java", Runtime.version().toString());
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        return out;
    }

    /** Prints a process storm's result as JSON; exits with 1 unless it {@code passed}. */
    public static void print(Map<String, Object> result) throws IOException {
        System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
        if (!Boolean.TRUE.equals(result.get("passed"))) {
            System.exit(1);
        }
    }
}
