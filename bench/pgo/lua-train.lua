-- bench/pgo/lua-train.lua: the training workload for the lua interpreter.
-- A mix of what Lua programs do (string scanning and building, tables as
-- maps and arrays, closures, metatables, recursion, coroutines), written
-- to be different code from lua-eval.lua, which the profiles are judged
-- on. usage: lua lua-train.lua [SCALE]  (default 1; about 0.8 s at -O2)
local scale = tonumber(arg and arg[1]) or 1
local out = {}
local function report(name, v) out[#out + 1] = name .. "=" .. tostring(v) end

-- Word frequencies over generated text: gmatch, lower, table counting.
local function words(n)
  local syll = { "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "xu" }
  local seed, parts = 7, {}
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local w = syll[seed % 10 + 1] .. syll[(seed // 10) % 10 + 1]
    if seed % 3 == 0 then w = w .. syll[(seed // 100) % 10 + 1] end
    parts[i] = (seed % 7 == 0) and w:upper() or w
  end
  local text = table.concat(parts, " ")
  local freq, distinct = {}, 0
  for w in text:gmatch("%a+") do
    w = w:lower()
    if not freq[w] then distinct = distinct + 1; freq[w] = 0 end
    freq[w] = freq[w] + 1
  end
  local keys = {}
  for k in pairs(freq) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if freq[a] ~= freq[b] then return freq[a] > freq[b] end
    return a < b
  end)
  return distinct .. ":" .. keys[1]
end

-- Sieve of Eratosthenes over a boolean array.
local function sieve(n)
  local comp, count = {}, 0
  for i = 2, n do
    if not comp[i] then
      count = count + 1
      for j = i * i, n, i do comp[j] = true end
    end
  end
  return count
end

-- Dense matrix product with nested tables.
local function matmul(n)
  local a, b = {}, {}
  for i = 1, n do
    a[i], b[i] = {}, {}
    for j = 1, n do a[i][j] = (i + j) % 7 - 3; b[i][j] = (i * j) % 5 - 2 end
  end
  local c, tr = {}, 0
  for i = 1, n do
    local ai, ci = a[i], {}
    for j = 1, n do
      local s = 0
      for k = 1, n do s = s + ai[k] * b[k][j] end
      ci[j] = s
    end
    c[i] = ci
    tr = tr + ci[i]
  end
  return tr
end

-- N queens by recursion with array bookkeeping.
local function queens(n)
  local cols, d1, d2, sols = {}, {}, {}, 0
  local function place(r)
    if r > n then sols = sols + 1; return end
    for c = 1, n do
      if not cols[c] and not d1[r + c] and not d2[r - c + n] then
        cols[c], d1[r + c], d2[r - c + n] = true, true, true
        place(r + 1)
        cols[c], d1[r + c], d2[r - c + n] = nil, nil, nil
      end
    end
  end
  place(1)
  return sols
end

-- Objects through metatables: a bank of accounts with method calls.
local Account = {}
Account.__index = Account
function Account.new(id) return setmetatable({ id = id, bal = 0, log = 0 }, Account) end
function Account:deposit(v) self.bal = self.bal + v; self.log = self.log + 1 end
function Account:withdraw(v)
  if v > self.bal then return false end
  self.bal = self.bal - v; self.log = self.log + 1
  return true
end
local function bank(n)
  local accts = {}
  for i = 1, 64 do accts[i] = Account.new(i) end
  local refused = 0
  for i = 1, n do
    local a = accts[i % 64 + 1]
    if i % 3 == 0 then
      if not a:withdraw(i % 50) then refused = refused + 1 end
    else
      a:deposit(i % 40)
    end
  end
  return refused
end

-- Coroutine pipeline: a generator filtered and summed.
local function pipeline(n)
  local gen = coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
  local sum = 0
  for v in gen do
    if v % 3 ~= 0 then sum = sum + v % 1000 end
  end
  return sum
end

-- String building: format, rep, gsub with a function, table.concat.
local function strings(n)
  local lines = {}
  for i = 1, n do
    lines[i] = string.format("%05d|%s|%.2f", i, ("ab"):rep(i % 5 + 1), i / 7)
  end
  local s = table.concat(lines, "\n")
  local changed = 0
  s = s:gsub("(%d+)|", function(d) changed = changed + 1; return d:reverse() .. ";" end)
  return changed + #s
end

-- Mandelbrot set: float arithmetic in tight loops.
local function mandel(n)
  local inside = 0
  for py = 0, n - 1 do
    local ci = 2.0 * py / n - 1.0
    for px = 0, n - 1 do
      local cr, zr, zi, it = 2.5 * px / n - 2.0, 0.0, 0.0, 0
      while it < 50 and zr * zr + zi * zi <= 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        it = it + 1
      end
      if it == 50 then inside = inside + 1 end
    end
  end
  return inside
end

-- A binary heap of records: allocation, comparisons through a function.
local function heapsort(n)
  local heap, size, seed = {}, 0, 99
  local function less(a, b) return a.key < b.key end
  local function push(v)
    size = size + 1
    local i = size
    heap[i] = v
    while i > 1 do
      local p = i // 2
      if less(heap[p], heap[i]) then break end
      heap[p], heap[i] = heap[i], heap[p]
      i = p
    end
  end
  local function pop()
    local top = heap[1]
    heap[1] = heap[size]; heap[size] = nil; size = size - 1
    local i = 1
    while true do
      local l, m = 2 * i, i
      if l <= size and less(heap[l], heap[m]) then m = l end
      if l + 1 <= size and less(heap[l + 1], heap[m]) then m = l + 1 end
      if m == i then break end
      heap[m], heap[i] = heap[i], heap[m]
      i = m
    end
    return top
  end
  for _ = 1, n do
    seed = (seed * 69069 + 1) % 4294967296
    push({ key = seed % 100000, w = seed / 4294967296.0 })
  end
  local sum, prev = 0.0, -1
  for _ = 1, n do
    local v = pop()
    if v.key < prev then return "unsorted" end
    prev = v.key
    sum = sum + v.w
  end
  return string.format("%.3f", sum)
end

-- A tokenizer over generated source text: byte, sub, find.
local function tokens(n)
  local pieces = {}
  for i = 1, n do
    pieces[i] = "x" .. i .. " = (y" .. (i % 13) .. " + " .. (i * 3.5) .. ") * z;"
  end
  local src = table.concat(pieces, " ")
  local pos, counts = 1, { id = 0, num = 0, op = 0 }
  while pos <= #src do
    local c = src:byte(pos)
    if c == 32 then
      pos = pos + 1
    elseif (c >= 97 and c <= 122) then
      local _, e = src:find("^[%w_]+", pos)
      counts.id = counts.id + 1; pos = e + 1
    elseif c >= 48 and c <= 57 then
      local _, e = src:find("^[%d.]+", pos)
      local v = tonumber(src:sub(pos, e))
      if v then counts.num = counts.num + 1 end
      pos = e + 1
    else
      counts.op = counts.op + 1; pos = pos + 1
    end
  end
  return counts.id .. "/" .. counts.num .. "/" .. counts.op
end

-- Memoized and plain recursion: small calls.
local function calls(n)
  local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
  local memo = {}
  local function ways(k, m)
    if k == 0 then return 1 end
    if k < 0 or m == 0 then return 0 end
    local key = k * 1000 + m
    local v = memo[key]
    if v then return v end
    v = ways(k - m, m) + ways(k, m - 1)
    memo[key] = v
    return v
  end
  return fib(n) + ways(300, 60) % 1000003
end

for _ = 1, scale do
  report("words", words(120000))
  report("sieve", sieve(1500000))
  report("matmul", matmul(110))
  report("queens", queens(9))
  report("bank", bank(1500000))
  report("pipeline", pipeline(400000))
  report("strings", strings(120000))
  report("mandel", mandel(260))
  report("heapsort", heapsort(60000))
  report("tokens", tokens(40000))
  report("calls", calls(25))
end
print(table.concat(out, " "))
