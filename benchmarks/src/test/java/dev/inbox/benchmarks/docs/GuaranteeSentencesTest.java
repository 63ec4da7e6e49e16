package dev.inbox.benchmarks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every guarantee sentence in the repository's Markdown, and in the comments of its main sources,
 * names its mode. What each mode guarantees
 * differs — lease mode applies an event again after a crash between its work and its record — so:
 *
 * <ul>
 *   <li>"at most once" and "runs once" are never written: no mode runs work at most once across
 *       crashes (transactional mode rolls the work back with its claim; lease mode runs it again);
 *   <li>"exactly once" stands only in a paragraph (or table row) that speaks of the transaction it
 *       rests on; the storm's verdict {@code EXACTLY-ONCE}, a name, is exempt.
 * </ul>
 */
class GuaranteeSentencesTest {

    private static final Pattern NEVER = Pattern.compile("(?i)\\bat most once\\b|\\bruns once\\b");
    private static final Pattern EXACTLY_ONCE = Pattern.compile("(?i)\\bexactly[ -]once\\b");

    @Test
    void noGuaranteeSentenceOverPromises() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Path page : ReadmeSnippetsTest.markdownFiles()) {
            String where = ReadmeSnippetsTest.ROOT.relativize(page).toString();
            for (String paragraph : paragraphs(Files.readString(page))) {
                check(where, paragraph, wrong);
            }
        }
        assertThat(wrong)
                .as("guarantee sentences that promise more than their mode gives")
                .isEmpty();
    }

    /**
     * The same rules for the comments of the code every user reads in an IDE: each javadoc paragraph
     * (split at blank lines and {@code <p>}) and each line comment of every main source file.
     */
    @Test
    void noCommentInTheCodeOverPromises() throws IOException {
        List<Path> sources = ReadmeSnippetsTest.files(
                file -> file.toString().endsWith(".java") && file.toString().contains("/src/main/java/"));
        assertThat(sources)
                .as("main sources")
                .contains(ReadmeSnippetsTest.ROOT.resolve("inbox-api/src/main/java/dev/inbox/Inbox.java"));
        List<String> wrong = new ArrayList<>();
        for (Path source : sources) {
            String where = ReadmeSnippetsTest.ROOT.relativize(source).toString();
            for (String paragraph : commentParagraphs(Files.readString(source))) {
                check(where, paragraph, wrong);
            }
        }
        assertThat(wrong).as("comments that promise more than their mode gives").isEmpty();
    }

    private static final Pattern COMMENT = Pattern.compile("/\\*(.*?)\\*/|//([^\n]*)", Pattern.DOTALL);

    /** Each javadoc or block comment split into paragraphs, each line comment alone. */
    static List<String> commentParagraphs(String java) {
        List<String> paragraphs = new ArrayList<>();
        Matcher m = COMMENT.matcher(java);
        while (m.find()) {
            if (m.group(2) != null) {
                paragraphs.add(m.group(2));
                continue;
            }
            StringBuilder text = new StringBuilder();
            for (String line : m.group(1).split("\n", -1)) {
                text.append(line.strip().replaceFirst("^\\*+", "")).append('\n');
            }
            for (String paragraph : text.toString().split("\n\\s*\n|<p>")) {
                paragraphs.add(paragraph.replace('\n', ' '));
            }
        }
        return paragraphs;
    }

    /** Blocks separated by blank lines; each table row alone; of code blocks, only lines that say "runs once". */
    static List<String> paragraphs(String markdown) {
        List<String> paragraphs = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean code = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                code = !code;
                flush(current, paragraphs);
                continue;
            }
            if (code) {
                if (NEVER.matcher(line).find()) {
                    paragraphs.add(line); // a comment in a code block promises as much as prose
                }
                continue;
            }
            if (line.isBlank()) {
                flush(current, paragraphs);
            } else if (line.startsWith("|")) {
                flush(current, paragraphs);
                paragraphs.add(line);
            } else {
                current.append(line).append(' ');
            }
        }
        flush(current, paragraphs);
        return paragraphs;
    }

    private static void flush(StringBuilder current, List<String> paragraphs) {
        if (!current.isEmpty()) {
            paragraphs.add(current.toString());
            current.setLength(0);
        }
    }

    /** Adds to {@code wrong} each phrase of {@code paragraph} that over-promises. */
    private static void check(String where, String paragraph, List<String> wrong) {
        Matcher never = NEVER.matcher(paragraph);
        while (never.find()) {
            wrong.add(where + ": \"" + never.group() + "\" in: " + excerpt(paragraph, never.start()));
        }
        Matcher exactly = EXACTLY_ONCE.matcher(paragraph);
        while (exactly.find()) {
            boolean verdict = exactly.group().equals("EXACTLY-ONCE");
            if (!verdict && !paragraph.toLowerCase(Locale.ROOT).contains("transaction")) {
                wrong.add(where + ": \"" + exactly.group() + "\" without its mode in: "
                        + excerpt(paragraph, exactly.start()));
            }
        }
    }

    private static String excerpt(String paragraph, int at) {
        return "…"
                + paragraph
                        .substring(Math.max(0, at - 80), Math.min(paragraph.length(), at + 80))
                        .strip() + "…";
    }
}
