package dev.inbox.benchmarks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java snippet in the README compiles as written, with the imports it shows, against the
 * published modules (and kafka-clients, which the examples use). A snippet's surroundings — the
 * variables it takes from the reader's code, such as {@code dataSource} or {@code record} — are
 * declared in an HTML comment just before it, {@code <!-- compile: DataSource dataSource; -->},
 * which Markdown does not show. The snippet's import lines become the compilation unit's imports;
 * the rest becomes the body of a method that may throw anything.
 */
class ReadmeSnippetsTest {

    private static final Pattern SNIPPET =
            Pattern.compile("(?:<!-- compile:(.*?)-->\\s*\\n)?```java\\n(.*?)```", Pattern.DOTALL);

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetInTheReadmeCompiles() throws IOException {
        return snippets(Path.of("../README.md"));
    }

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetInTheSqsReadmeCompiles() throws IOException {
        return snippets(Path.of("../inbox-sqs/README.md"));
    }

    private static Stream<DynamicTest> snippets(Path readme) throws IOException {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        List<DynamicTest> tests = new ArrayList<>();
        Matcher m = SNIPPET.matcher(text);
        while (m.find()) {
            int line = (int) text.substring(0, m.start(2)).lines().count() + 1;
            String context = m.group(1) == null ? "" : m.group(1);
            String snippet = m.group(2);
            tests.add(DynamicTest.dynamicTest(
                    readme + " line " + line, () -> assertCompiles(readme + ":" + line, snippet, context)));
        }
        assertThat(tests).as("Java snippets in %s", readme).isNotEmpty();
        return tests.stream();
    }

    private static void assertCompiles(String where, String snippet, String context) {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        for (String line : snippet.split("\n", -1)) {
            (line.startsWith("import ") ? imports : body).append(line).append('\n');
        }
        String source = imports + "\nclass Snippet {\n" + context.replace(";", ";\n")
                + "\nvoid run() throws Exception {\n" + body + "}\n}\n";
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file =
                new SimpleJavaFileObject(URI.create("string:///Snippet.java"), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return source;
                    }
                };
        Path out;
        try {
            out = Files.createDirectories(Path.of("target", "readme-snippets"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        boolean ok = compiler.getTask(
                        null,
                        null,
                        diagnostics,
                        List.of(
                                "-classpath",
                                System.getProperty("java.class.path"),
                                "-d",
                                out.toString(),
                                "-proc:none"),
                        null,
                        List.of(file))
                .call();
        List<String> errors = diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> "line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
                .toList();
        assertThat(ok)
                .as("%s does not compile as written:%n%s%nas compiled:%n%s", where, String.join("\n", errors), source)
                .isTrue();
    }
}
