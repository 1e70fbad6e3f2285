-- A workload for Lua 5.4's interpreter (the sampled real-code tests and
-- bench/sample_short_processes.sh): most of the VM's opcodes, the string,
-- table, math, coroutine and utf8 libraries, metatables, closures, goto,
-- errors and the garbage collector. `lua lua_workload.lua [N]`: N rounds
-- (default 3); prints one checksum line.
local N = tonumber(arg and arg[1]) or 3
local acc = 0

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
Vec.__add = function(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a.x < b.x end
Vec.__le = function(a, b) return a.x <= b.x end
Vec.__len = function(a) return 2 end
Vec.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
Vec.__call = function(a, k) return a.x * k end
Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
Vec.__unm = function(a) return Vec.new(-a.x, -a.y) end

local function strings(i)
  local s = string.format("%d:%s:%5.2f:%x", i, "abc", i / 7, i * 255)
  local t = {}
  for w in s:gmatch("[^:]+") do t[#t + 1] = w:upper() end
  local r = table.concat(t, "-")
  r = r:gsub("%d", function(d) return tostring((tonumber(d) + 1) % 10) end)
  local a, b = r:find("ABC", 1, true)
  return #r + (a or 0) + (b or 0) + #s:rep(3, ",") + (s:byte(1) or 0) + #string.char(65, 66) + #s:reverse()
    + (select("#", s:match("(%d+):(%a+)")) or 0)
end

local function tables(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % 101 end
  table.sort(t)
  table.sort(t, function(a, b) return a > b end)
  table.insert(t, 1, 5)
  table.remove(t, 2)
  local u = table.move(t, 1, 10, 1, {})
  local sum = 0
  for _, v in ipairs(u) do sum = sum + v end
  local h = {}
  for i = 1, n do h["k" .. (i % 13)] = i end
  for k, v in pairs(h) do sum = sum + #k + v end
  h.k1 = nil
  sum = sum + select(2, table.unpack({1, 2, 3}))
  return sum + #t + rawlen(t) + (rawget(h, "k2") or 0) + (next({}) == nil and 1 or 0)
end

local function arith(i)
  local a, b = i * 3, i + 1
  local f = i / 3.0
  local r = a // b + a % b + (a << 2) + (a >> 1) + (a & 0xff) + (a | 1) + (a ~ b) + (~a) + a ^ 2
  r = r + math.floor(f) + math.ceil(f) + math.max(a, b) + math.min(a, b) + math.abs(-a) + math.fmod(a, 7)
  r = r + (math.tointeger(3.0) or 0) + (math.type(f) == "float" and 1 or 0) + math.sqrt(a) + math.sin(f)
  r = r + (a == b and 1 or 0) + (a < b and 1 or 0) + (a <= b and 1 or 0) + (f > 1 and 1 or 0)
  r = r + (-a) + (f // 1) + (f % 2) + tonumber("0x10") + tonumber("12", 8) + (tonumber("z") or 0)
  return r
end

local function closures(n)
  local fs = {}
  for i = 1, n do
    local c = i
    fs[i] = function(x) c = c + x; return c end
  end
  local s = 0
  for i = 1, n do s = s + fs[i](i) + fs[i](1) end
  return s
end

local function coroutines(n)
  local co = coroutine.wrap(function(a)
    for i = 1, n do a = coroutine.yield(a + i) end
    return -1
  end)
  local s = co(0)
  for i = 1, n do s = s + co(i) end
  local t = coroutine.create(function() error("boom") end)
  local ok = coroutine.resume(t)
  return s + (ok and 0 or 1) + (coroutine.status(t) == "dead" and 1 or 0) + (coroutine.isyieldable() and 1 or 0)
end

local function errors(i)
  local ok, e = pcall(function() if i % 2 == 0 then error({code = i}) else error("odd " .. i, 2) end end)
  local n = type(e) == "table" and e.code or #e
  local ok2, e2 = xpcall(function() local x = nil; return x.y end, function(m) return "h:" .. tostring(m) end)
  n = n + #e2
  local ok3 = pcall(error)
  return n + (ok and 1 or 0) + (ok2 and 1 or 0) + (ok3 and 1 or 0)
end

local function gotos(n)
  local i, s = 0, 0
  ::top::
  i = i + 1
  if i % 3 == 0 then goto skip end
  s = s + i
  ::skip::
  if i < n then goto top end
  while true do s = s - 1; if s % 5 == 0 then break end end
  repeat s = s + 2 until s % 7 == 0
  for k = 10, 1, -2 do s = s + k end
  for k = 1.0, 2.0, 0.5 do s = s + k end
  return s
end

local function varargs(...)
  local n = select("#", ...)
  local t = {...}
  local t2 = table.pack(...)
  return n + #t + t2.n
end

local function utf(i)
  local s = utf8.char(72, 228, 8364, 128512 + i % 10)
  local n = 0
  for _, c in utf8.codes(s) do n = n + c end
  return n + utf8.len(s) + utf8.offset(s, 2) + utf8.codepoint(s, 1)
end

local function integers_and_strings()
  local s = 0
  s = s + #tostring(2^53) + #tostring(-0.0) + #tostring(1e100) + #string.format("%q", "a\nb\0c")
  s = s + (("10" + 5) | 0) + (math.ult(1, -1) and 1 or 0) + #string.pack("i4", 100) + string.unpack("i4", string.pack("i4", 7))
  local big = {}
  for i = 1, 200 do big[#big + 1] = string.rep("x", i % 17) end
  s = s + #table.concat(big)
  return s
end

for round = 1, N do
  acc = acc + fib(18 + round % 2)
  local v = Vec.new(1, 2) + Vec.new(3, 4)
  acc = acc + v.x + #v + v(3) + #(v .. v) + (v == Vec.new(4, 6) and 1 or 0) + (v < Vec.new(9, 9) and 1 or 0)
    + (v <= v and 1 or 0) + (-v).x
  for i = 1, 200 do acc = acc + strings(i) + arith(i) + errors(i) + utf(i) end
  acc = acc + tables(500) + closures(100) + coroutines(50) + gotos(300) + varargs(1, nil, 3, "x")
  acc = acc + integers_and_strings()
  local weak = setmetatable({}, {__mode = "k"})
  for i = 1, 100 do weak[{}] = i end
  collectgarbage("collect")
  acc = acc + collectgarbage("count") // 1e9
  local ok, chunk = pcall(load, "local a, b = ... return a * b + " .. round)
  acc = acc + chunk(6, 7)
  acc = acc + (load("return 1 +") == nil and 1 or 0)
  acc = acc + #os.date("%Y", 0) + (os.time({year = 2020, month = 1, day = 1}) > 0 and 1 or 0)
  acc = acc + #string.format("%g %s %i", 1.5, true, 3) + (tostring(nil) == "nil" and 1 or 0)
end
print(string.format("%.0f", acc % 1e12))
