# bench/pgo/awk-train.awk: the training workload for gawk. A web-log
# report (regex matches, captures, sub, split, associative arrays) over
# access.log, then revenue by region and month over sales.csv. Different
# code and mostly different input from awk-eval.awk, which the profiles
# are judged on. usage: gawk -f awk-train.awk access.log sales.csv
BEGINFILE { FS = (FILENAME ~ /\.csv$/) ? "," : " " }

FILENAME ~ /\.log$/ {
  hits[$1]++
  bytes[$1] += $10
  status[$9]++
  if (match($0, /\[([0-9]+)\/([A-Za-z]+)\/([0-9]+):([0-9]+)/, m)) {
    hour[m[4]]++
    month[m[2]]++
  }
  url = $7
  if (sub(/\?.*/, "", url))
    queries++
  urls[url]++
  if (url ~ /\.(png|js|css)$/)
    static++
  if (index($0, "bot") || index($0, "Bot"))
    bots++
  depth[split(url, parts, "/")]++
  agent = $0
  sub(/^.*" "/, "", agent)
  sub(/"$/, "", agent)
  agents[tolower(agent)]++
  if ($9 >= 400)
    errors[$9 " " url]++
  next
}

FILENAME ~ /\.csv$/ && FNR > 1 {
  amount = $5 * $6
  revenue[$3] += amount
  byitem[$4] += $5
  mon = substr($2, 6, 2)
  bymonth[mon] += amount
  if (amount > biggest) {
    biggest = amount
    bigline = $0
  }
}

END {
  PROCINFO["sorted_in"] = "@val_num_desc"
  n = 0
  for (h in hits) {
    if (++n > 5) break
    printf "host %-14s %6d hits %10d bytes\n", h, hits[h], bytes[h]
  }
  for (s in status) printf "status %s %d\n", s, status[s]
  n = 0
  for (u in urls) {
    if (++n > 5) break
    printf "url %s %d\n", u, urls[u]
  }
  for (a in agents) printf "agent %s %d\n", a, agents[a]
  for (e in errors) cnt_err += errors[e]
  PROCINFO["sorted_in"] = "@ind_str_asc"
  for (hh in hour) printf "hour %s %d\n", hh, hour[hh]
  for (mm in month) printf "month %s %d\n", mm, month[mm]
  for (d in depth) printf "depth %s %d\n", d, depth[d]
  for (r in revenue) printf "region %s %.2f\n", r, revenue[r]
  for (i in byitem) printf "item %s %d\n", i, byitem[i]
  for (mm in bymonth) printf "salesmonth %s %.2f\n", mm, bymonth[mm]
  printf "queries %d static %d bots %d errors %d\n", queries, static, bots, cnt_err
  print "biggest", bigline
}
