# The median of interleaved rounds, for the claim-shapes scripts: reads lines "<clients> <variant>
# <rate>" (one per run) and prints, per clients and variant, the median rate and every round's, the
# fastest first. Variables: unit (the rate's unit, "tps"), width (the variant column's width).
{ key = $1 " " $2; n[key]++; v[key, n[key]] = $3 }
END {
  for (key in n) {
    m = n[key]; for (i = 1; i <= m; i++) a[i] = v[key, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    all = ""; for (i = 1; i <= m; i++) all = all " " v[key, i]
    split(key, k, " ")
    printf "clients=%s %-" width "s median %7d %s   rounds:%s\n", k[1], k[2], a[int((m + 1) / 2)], unit, all
  }
}
