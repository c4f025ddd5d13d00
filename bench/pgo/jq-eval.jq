# jq-eval.jq: the evaluation workload of jq, run as jq -n over JSON lines of
# sensor events: error messages rewritten by sub, per-device summaries,
# per-kind means by reduce, path strings, tostream, TSV and gsub.
[inputs] as $ev
| ($ev | map(select(.error) | .error.msg | sub("fault (?<n>[0-9])"; "F\(.n)"))
   | group_by(.) | map({k: .[0], n: length})),
  ($ev | group_by(.device)
   | map({device: .[0].device, n: length, max: (map(.value) | max), fw: (map(.meta.fw) | unique)})
   | sort_by(-.n) | .[:25]),
  (reduce $ev[] as $e ({}; .[$e.kind] += [$e.value])
   | with_entries(.value |= {n: length, mean: (add / length)})),
  ($ev | map(.meta.path | join(">")) | unique | length),
  ($ev[:3000] | map([tostream] | length) | add),
  ($ev | map(select(.kind == "door" and .meta.rssi < -80) | [.ts, .device] | @tsv) | .[:50][]),
  ($ev[] | select(.ts % 97 == 0) | tojson | fromjson | .device | ascii_upcase | gsub("-"; "_"))
