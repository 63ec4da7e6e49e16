package dev.inbox.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script of the store, shipped in the jar, run by {@code EVALSHA} and sent again with
 * {@code EVAL} when the server answers {@code NOSCRIPT} (after a restart, a failover or {@code
 * SCRIPT FLUSH}).
 */
final class RedisScript {

    private final String source;
    private final String sha;

    private RedisScript(String source) {
        this.source = source;
        try {
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-1", e);
        }
    }

    static RedisScript load(String name) {
        try (InputStream in = RedisScript.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException(name + ".lua is missing from the inbox-redis jar");
            }
            return new RedisScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SHA-1 that {@code EVALSHA} names the script by (and {@code SCRIPT EXISTS} takes). */
    String sha() {
        return sha;
    }

    /** Runs the script on one key, synchronously. */
    <T> T run(RedisScriptingCommands<byte[], byte[]> commands, ScriptOutputType type, byte[] key, byte[]... args) {
        return run(commands, type, new byte[][] {key}, args);
    }

    /** Runs the script on {@code keys} (all in one slot when the server is a Cluster), synchronously. */
    <T> T run(RedisScriptingCommands<byte[], byte[]> commands, ScriptOutputType type, byte[][] keys, byte[]... args) {
        try {
            return commands.evalsha(sha, type, keys, args);
        } catch (RedisNoScriptException e) {
            return commands.eval(source, type, keys, args);
        }
    }

    /** Starts the script on one key without waiting (for pipelined batches); NOSCRIPT is the caller's to retry. */
    <T> RedisFuture<T> start(
            RedisScriptingAsyncCommands<byte[], byte[]> commands, ScriptOutputType type, byte[] key, byte[]... args) {
        return start(commands, type, new byte[][] {key}, args);
    }

    /** Starts the script on {@code keys} (all in one slot when the server is a Cluster) without waiting. */
    <T> RedisFuture<T> start(
            RedisScriptingAsyncCommands<byte[], byte[]> commands,
            ScriptOutputType type,
            byte[][] keys,
            byte[]... args) {
        return commands.evalsha(sha, type, keys, args);
    }
}
