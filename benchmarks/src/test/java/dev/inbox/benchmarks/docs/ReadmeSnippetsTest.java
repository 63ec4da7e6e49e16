package dev.inbox.benchmarks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java snippet in every Markdown file of the repository (the README, the pages under
 * {@code docs/}, the modules' READMEs) compiles as written, with the imports it shows, against the
 * published modules (and kafka-clients, which the examples use). A snippet's surroundings — the
 * variables it takes from the reader's code, such as {@code dataSource} or {@code record} — are
 * declared in an HTML comment just before it, {@code <!-- compile: DataSource dataSource; -->},
 * which Markdown does not show. The snippet's import lines become the compilation unit's imports;
 * the rest becomes the body of a method that may throw anything (a class a snippet declares is a
 * local class there).
 */
class ReadmeSnippetsTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Set<String> NOT_OURS = Set.of("target", "node_modules", ".git", ".mvn");

    private static final Pattern SNIPPET =
            Pattern.compile("(?:<!-- compile:(.*?)-->\\s*\\n)?```java\\n(.*?)```", Pattern.DOTALL);

    @TestFactory
    Stream<DynamicContainer> everyJavaSnippetInEveryMarkdownFileCompiles() throws IOException {
        List<Path> pages = markdownFiles();
        assertThat(pages).as("Markdown files under %s", ROOT).contains(ROOT.resolve("README.md"));
        List<DynamicContainer> containers = new ArrayList<>();
        for (Path page : pages) {
            List<DynamicTest> tests = snippets(page);
            if (!tests.isEmpty()) {
                containers.add(
                        DynamicContainer.dynamicContainer(ROOT.relativize(page).toString(), tests.stream()));
            }
        }
        assertThat(containers)
                .as("pages with Java snippets")
                .extracting(DynamicContainer::getDisplayName)
                .contains("README.md", "inbox-tck/README.md", "inbox-sqs/README.md");
        return containers.stream();
    }

    /** The repository's Markdown files, build output and installed packages left out. */
    static List<Path> markdownFiles() throws IOException {
        return files(file -> file.getFileName().toString().endsWith(".md"));
    }

    /** The repository's files that {@code wanted} takes, build output and installed packages left out. */
    static List<Path> files(java.util.function.Predicate<Path> wanted) throws IOException {
        List<Path> pages = new ArrayList<>();
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return NOT_OURS.contains(dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (wanted.test(file)) {
                    pages.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        pages.sort(null);
        return pages;
    }

    private static List<DynamicTest> snippets(Path page) throws IOException {
        String readme = ROOT.relativize(page).toString();
        String text = Files.readString(page, StandardCharsets.UTF_8);
        List<DynamicTest> tests = new ArrayList<>();
        Matcher m = SNIPPET.matcher(text);
        while (m.find()) {
            int line = (int) text.substring(0, m.start(2)).lines().count() + 1;
            String context = m.group(1) == null ? "" : m.group(1);
            String snippet = m.group(2);
            tests.add(DynamicTest.dynamicTest(
                    readme + " line " + line, () -> assertCompiles(readme + ":" + line, snippet, context)));
        }
        return tests;
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
