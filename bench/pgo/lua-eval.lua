-- bench/pgo/lua-eval.lua: the evaluation workload for the lua interpreter.
-- Classic small benchmarks (binary trees, n-body, spectral norm, fannkuch,
-- a JSON round trip, substring counting), different code from
-- lua-train.lua, which the profiles are made from.
-- usage: lua lua-eval.lua [SCALE]  (default 1; about 0.6 s at -O2)
local scale = tonumber(arg and arg[1]) or 1
local out = {}
local function report(name, v) out[#out + 1] = name .. "=" .. tostring(v) end

-- Binary trees: allocation, garbage collection, recursion.
local function bottomup(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottomup(d), bottomup(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local function trees(maxd)
  local total = 0
  for d = 4, maxd, 2 do
    local iters = 1 << (maxd - d + 4)
    for _ = 1, iters do total = total + check(bottomup(d)) end
  end
  return total
end

-- N-body: float arithmetic on record fields.
local function nbody(steps)
  local pi, days = math.pi, 365.24
  local sm = 4 * pi * pi
  local bodies = {
    { x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0, m = sm },
    { x = 4.84, y = -1.16, z = -0.10, vx = 0.606 * days, vy = 2.81 * days, vz = -0.02 * days, m = 9.5e-4 * sm },
    { x = 8.34, y = 4.12, z = -0.40, vx = -1.01 * days, vy = 1.82 * days, vz = 0.008 * days, m = 2.8e-4 * sm },
    { x = 12.89, y = -15.11, z = -0.22, vx = 1.08 * days, vy = 0.868 * days, vz = -0.01 * days, m = 4.4e-5 * sm },
    { x = 15.37, y = -25.91, z = 0.17, vx = 0.979 * days, vy = 0.594 * days, vz = -0.034 * days, m = 5.1e-5 * sm },
  }
  local n, dt = #bodies, 0.01
  for _ = 1, steps do
    for i = 1, n do
      local bi = bodies[i]
      for j = i + 1, n do
        local bj = bodies[j]
        local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
        local d2 = dx * dx + dy * dy + dz * dz
        local mag = dt / (d2 * math.sqrt(d2))
        local mi, mj = bi.m * mag, bj.m * mag
        bi.vx, bi.vy, bi.vz = bi.vx - dx * mj, bi.vy - dy * mj, bi.vz - dz * mj
        bj.vx, bj.vy, bj.vz = bj.vx + dx * mi, bj.vy + dy * mi, bj.vz + dz * mi
      end
    end
    for i = 1, n do
      local b = bodies[i]
      b.x, b.y, b.z = b.x + dt * b.vx, b.y + dt * b.vy, b.z + dt * b.vz
    end
  end
  return string.format("%.6f", bodies[1].x)
end

-- Spectral norm: many small function calls.
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
local function Av(x, y, n)
  for i = 1, n do
    local s = 0
    for j = 1, n do s = s + A(i, j) * x[j] end
    y[i] = s
  end
end
local function Atv(x, y, n)
  for i = 1, n do
    local s = 0
    for j = 1, n do s = s + A(j, i) * x[j] end
    y[i] = s
  end
end
local function spectral(n)
  local u, v, t = {}, {}, {}
  for i = 1, n do u[i] = 1 end
  for _ = 1, 10 do
    Av(u, t, n); Atv(t, v, n)
    Av(v, t, n); Atv(t, u, n)
  end
  local vbv, vv = 0, 0
  for i = 1, n do vbv = vbv + u[i] * v[i]; vv = vv + v[i] * v[i] end
  return string.format("%.9f", math.sqrt(vbv / vv))
end

-- Fannkuch-redux: integer array permutations.
local function fannkuch(n)
  local perm, perm1, count = {}, {}, {}
  for i = 0, n - 1 do perm1[i] = i end
  local maxflips, checksum, r, nperm = 0, 0, n, 0
  while true do
    while r ~= 1 do count[r - 1] = r; r = r - 1 end
    for i = 0, n - 1 do perm[i] = perm1[i] end
    local flips, k = 0, perm[0]
    while k ~= 0 do
      local i, j = 0, k
      while i < j do perm[i], perm[j] = perm[j], perm[i]; i = i + 1; j = j - 1 end
      flips = flips + 1
      k = perm[0]
    end
    if flips > maxflips then maxflips = flips end
    checksum = checksum + ((nperm % 2 == 0) and flips or -flips)
    while true do
      if r == n then return checksum .. "/" .. maxflips end
      local p0 = perm1[0]
      for i = 0, r - 1 do perm1[i] = perm1[i + 1] end
      perm1[r] = p0
      count[r] = count[r] - 1
      if count[r] > 0 then break end
      r = r + 1
    end
    nperm = nperm + 1
  end
end

-- JSON: encode nested tables, then decode them with string.find/byte/sub.
local function encode(v, buf)
  local t = type(v)
  if t == "table" then
    if #v > 0 then
      buf[#buf + 1] = "["
      for i = 1, #v do
        if i > 1 then buf[#buf + 1] = "," end
        encode(v[i], buf)
      end
      buf[#buf + 1] = "]"
    else
      buf[#buf + 1] = "{"
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys)
      for i, k in ipairs(keys) do
        if i > 1 then buf[#buf + 1] = "," end
        buf[#buf + 1] = string.format("%q:", k)
        encode(v[k], buf)
      end
      buf[#buf + 1] = "}"
    end
  elseif t == "string" then
    buf[#buf + 1] = '"' .. v .. '"'
  else
    buf[#buf + 1] = tostring(v)
  end
end
local function decode(s)
  local pos = 1
  local value
  local function skip() pos = s:find("[^ \n]", pos) or #s + 1 end
  function value()
    skip()
    local c = s:byte(pos)
    if c == 123 then -- {
      local obj = {}
      pos = pos + 1; skip()
      if s:byte(pos) == 125 then pos = pos + 1; return obj end
      while true do
        local k = value(); skip(); pos = pos + 1 -- ':'
        obj[k] = value(); skip()
        local d = s:byte(pos); pos = pos + 1
        if d == 125 then return obj end
      end
    elseif c == 91 then -- [
      local arr = {}
      pos = pos + 1; skip()
      if s:byte(pos) == 93 then pos = pos + 1; return arr end
      while true do
        arr[#arr + 1] = value(); skip()
        local d = s:byte(pos); pos = pos + 1
        if d == 93 then return arr end
      end
    elseif c == 34 then -- "
      local e = s:find('"', pos + 1, true)
      local str = s:sub(pos + 1, e - 1)
      pos = e + 1
      return str
    else
      local a, b = s:find("^-?[%d.e+-]+", pos)
      if a then pos = b + 1; return tonumber(s:sub(a, b)) end
      local w = s:match("^%a+", pos)
      pos = pos + #w
      if w == "true" then return true elseif w == "false" then return false end
      return nil
    end
  end
  return value()
end
local function json(n)
  local doc = {}
  for i = 1, n do
    doc[i] = { id = i, name = "item" .. i, tags = { "a" .. i % 7, "b" .. i % 11 },
               price = i * 1.25, ok = i % 2 == 0 }
  end
  local total = 0
  for _ = 1, 4 do
    local buf = {}
    encode(doc, buf)
    local back = decode(table.concat(buf))
    for i = 1, #back do total = total + back[i].id end
  end
  return total
end

-- Substring counting over a DNA-like string.
local function kmers(len)
  local acgt, seed, parts = { "A", "C", "G", "T" }, 42, {}
  for i = 1, len do
    seed = (seed * 214013 + 2531011) % 4294967296
    parts[i] = acgt[(seed >> 16) % 4 + 1]
  end
  local s = table.concat(parts)
  local best = 0
  for k = 2, 6, 2 do
    local counts = {}
    for i = 1, #s - k + 1 do
      local sub = s:sub(i, i + k - 1)
      counts[sub] = (counts[sub] or 0) + 1
    end
    for _, c in pairs(counts) do if c > best then best = c end end
  end
  return best
end

for _ = 1, scale do
  report("trees", trees(13))
  report("nbody", nbody(60000))
  report("spectral", spectral(150))
  report("fannkuch", fannkuch(9))
  report("json", json(6000))
  report("kmers", kmers(150000))
end
print(table.concat(out, " "))
