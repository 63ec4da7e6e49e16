package dev.inbox.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsReportTest {

    @TempDir
    Path dir;

    private static String run(String method, String mode, int threads, String metric) {
        return "{\"benchmark\":\"dev.inbox.benchmarks.jmh.FooBenchmark." + method + "\",\"mode\":\"" + mode
                + "\",\"threads\":" + threads + ",\"primaryMetric\":" + metric + "}";
    }

    private static String throughput(double score, double error) {
        return "{\"score\":" + score + ",\"scoreError\":" + error + ",\"scoreUnit\":\"ops/s\"}";
    }

    private static String sample(double p50, double p99) {
        return "{\"score\":1,\"scoreError\":0,\"scoreUnit\":\"us/op\",\"scorePercentiles\":{\"0.0\":1,\"50.0\":" + p50
                + ",\"90.0\":2,\"99.0\":" + p99 + ",\"100.0\":900}}";
    }

    @Test
    void pairsStoreWithRaw_andAttachesSampleModePercentiles() throws Exception {
        Path results = Files.createDirectories(dir.resolve("results"));
        Files.writeString(
                results.resolve("foo-t1.json"),
                "[" + run("claim_store", "thrpt", 1, throughput(800, 40)) + ","
                        + run("claim_raw", "thrpt", 1, throughput(1000, 50)) + ","
                        + run("lonely_store", "thrpt", 1, throughput(5, 1)) + "]");
        Files.writeString(
                results.resolve("foo-latency-t1.json"),
                "[" + run("claim_store", "sample", 1, sample(410.4, 2300)) + ","
                        + run("claim_raw", "sample", 1, sample(35.24, 90)) + "]");
        Files.writeString(
                dir.resolve("README.md"), "before\n<!-- results:start -->\nold\n<!-- results:end -->\nafter\n");

        List<ResultsReport.Row> rows = ResultsReport.read(results);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).ratio()).isEqualTo(0.8);
        assertThat(rows.get(0).storeLatency()).isEqualTo(new ResultsReport.Latency(410.4, 2300, "us/op"));

        ResultsReport.main(new String[] {dir.toString()});
        String readme = Files.readString(dir.resolve("README.md"));
        assertThat(readme)
                .startsWith("before\n<!-- results:start -->\n")
                .endsWith("<!-- results:end -->\nafter\n")
                .doesNotContain("old")
                .contains(
                        "| FooBenchmark | claim | 1 | 800 ± 40 ops/s | 1,000 ± 50 ops/s | 0.80 | slower, outside the error | 410 / 2,300 us | 35.2 / 90.0 us |");
        assertThat(Files.readString(results.resolve("chart.svg")))
                .contains("<svg")
                .contains("0.80");
    }

    @Test
    void verdict_onlyWhereTheErrorBarsAreApart() {
        assertThat(row(800, 40, 1000, 50, "thrpt").verdict()).isEqualTo("slower, outside the error");
        assertThat(row(800, 150, 1000, 50, "thrpt").verdict()).isEqualTo("within the error");
        assertThat(row(1200, 40, 1000, 50, "thrpt").verdict()).isEqualTo("faster, outside the error");
        // single-shot times: less time is faster
        assertThat(row(2000, 100, 1000, 100, "ss").verdict()).isEqualTo("slower, outside the error");
        assertThat(row(500, 100, 1000, 100, "ss").verdict()).isEqualTo("faster, outside the error");
        assertThat(row(800, Double.NaN, 1000, 50, "thrpt").verdict()).isEqualTo("no error bar");
    }

    private static ResultsReport.Row row(double store, double storeError, double raw, double rawError, String mode) {
        String unit = mode.equals("ss") ? "ms/op" : "ops/s";
        return new ResultsReport.Row(
                "foo.json",
                "FooBenchmark",
                "claim",
                1,
                new ResultsReport.Score(store, storeError, unit, mode),
                new ResultsReport.Score(raw, rawError, unit, mode),
                null,
                null);
    }
}
