# bench/pgo/awk-eval.awk: the evaluation workload for gawk. Word and
# bigram frequencies of text.txt (tolower, gsub, field loops, big arrays),
# then per-customer statistics and reformatting of sales.csv (split,
# sprintf, min/max). Different code from awk-train.awk, which the profiles
# are made from. usage: gawk -f awk-eval.awk text.txt sales.csv
BEGINFILE { FS = (FILENAME ~ /\.csv$/) ? "," : " " }

FILENAME ~ /\.txt$/ {
  sentences += gsub(/[.!?]/, "&")
  line = tolower($0)
  gsub(/[^a-z ]+/, " ", line)
  nf = split(line, w, " ")
  words += nf
  chars += length(line)
  for (i = 1; i <= nf; i++) {
    freq[w[i]]++
    if (i > 1)
      bigram[w[i - 1] " " w[i]]++
    if (length(w[i]) > longest) {
      longest = length(w[i])
      longword = w[i]
    }
  }
  next
}

FILENAME ~ /\.csv$/ && FNR > 1 {
  split($2, d, "-")
  quarter = "Q" int((d[2] + 2) / 3)
  key = $7
  spent[key] += $5 * $6
  orders[key]++
  if (!(key in minp) || $6 < minp[key]) minp[key] = $6
  if ($6 > maxp[key]) maxp[key] = $6
  byq[quarter " " $4] += $5
  out = sprintf("%-10s|%s|%-8s|%5d|%9.2f", key, quarter, toupper(substr($4, 1, 3)), $5, $6)
  outlen += length(out)
}

END {
  PROCINFO["sorted_in"] = "@val_num_desc"
  n = 0
  for (x in freq) {
    if (++n > 10) break
    printf "word %s %d\n", x, freq[x]
  }
  n = 0
  for (x in bigram) {
    if (++n > 10) break
    printf "bigram %s %d\n", x, bigram[x]
  }
  n = 0
  for (c in spent) {
    if (++n > 5) break
    printf "customer %s %.2f in %d orders, %.2f..%.2f\n", c, spent[c], orders[c], minp[c], maxp[c]
  }
  PROCINFO["sorted_in"] = "@ind_str_asc"
  for (q in byq) printf "%s %d\n", q, byq[q]
  printf "words %d chars %d sentences %d distinct %d bigrams %d longest %s out %d\n",
    words, chars, sentences, length(freq), length(bigram), longword, outlen
}
