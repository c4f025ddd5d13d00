# jq-train.jq: the training workload of jq (one pretty-printed array of
# orders): revenue per city, the top paid orders, status counts, e-mail
# domains (a regex capture), and notes that match a regex, as TSV.
def revenue: [.items[] | .qty * .price] | add;
(group_by(.customer.city)
 | map({city: .[0].customer.city, orders: length, revenue: (map(revenue) | add | floor)})),
(map(select(.status == "paid")) | sort_by(-revenue) | .[:20]
 | map({order_id, who: .customer.name, r: (revenue * 100 | round)})),
(map(.status) | group_by(.) | map({(.[0]): length}) | add),
(map(.customer.email | capture("@(?<dom>[a-z]+)\\.example$").dom)
 | group_by(.) | map([.[0], length]) | sort_by(-.[1]) | .[:10]),
(map(.items | map(.sku[4:] | tonumber) | max) | add),
(.[] | select(.note | test("door [0-9]+")) | [.order_id, .customer.name, .date[0:10]] | @tsv)
