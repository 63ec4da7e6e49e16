package dev.inbox.keys;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Formats a double as ECMAScript's {@code Number.prototype.toString} does, which RFC 8785 (JCS)
 * requires: the shortest decimal that reads back as the same double, closest to the exact value
 * when several are shortest, in plain notation for exponents from -7 to 20 and {@code 1e+21} style
 * beyond.
 *
 * <p>{@link Double#toString(double)} is not a substitute on Java 17: it is not always shortest and
 * its notation differs.
 */
final class Es6Numbers {

    private Es6Numbers() {}

    static String format(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("JSON numbers must be finite, not " + value);
        }
        if (value == 0) {
            return "0"; // also -0, as ECMAScript prints it
        }
        BigDecimal shortest = shortestDecimal(Math.abs(value));
        String digits = shortest.unscaledValue().toString();
        int k = digits.length();
        int n = k - shortest.scale(); // value = 0.digits × 10^n
        StringBuilder out = new StringBuilder(32);
        if (value < 0) {
            out.append('-');
        }
        if (k <= n && n <= 21) {
            out.append(digits).append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(digits);
        } else {
            out.append(digits.charAt(0));
            if (k > 1) {
                out.append('.').append(digits, 1, k);
            }
            int exponent = n - 1;
            out.append('e').append(exponent < 0 ? '-' : '+').append(Math.abs(exponent));
        }
        return out.toString();
    }

    /** The shortest decimal that reads back as {@code positive}; the closest one on a tie of length. */
    private static BigDecimal shortestDecimal(double positive) {
        BigDecimal exact = new BigDecimal(positive);
        for (int precision = 1; precision <= 17; precision++) {
            // Only the two neighbours of the exact value at this precision can read back as it.
            BigDecimal down = exact.round(new MathContext(precision, RoundingMode.DOWN));
            BigDecimal up = exact.round(new MathContext(precision, RoundingMode.UP));
            boolean downOk = Double.parseDouble(down.toString()) == positive;
            boolean upOk = Double.parseDouble(up.toString()) == positive;
            if (downOk && upOk) {
                int cmp = exact.subtract(down).compareTo(up.subtract(exact));
                BigDecimal pick = cmp < 0 ? down : cmp > 0 ? up : evenOf(down, up);
                return pick.stripTrailingZeros();
            }
            if (downOk) {
                return down.stripTrailingZeros();
            }
            if (upOk) {
                return up.stripTrailingZeros();
            }
        }
        throw new AssertionError("17 significant digits always identify a double: " + positive);
    }

    private static BigDecimal evenOf(BigDecimal a, BigDecimal b) {
        return a.unscaledValue().testBit(0) ? b : a;
    }
}
