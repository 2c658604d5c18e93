"""The Lua scripts of RedisStore (redis_store.py says which keys they keep): each change to a class
is one script, which Redis runs alone. Every script starts with PRELUDE; its arguments: ARGV[1] the
keys' prefix, ARGV[2] the class's code, ARGV[3] now (seconds), then the script's own."""

PRELUDE = """
local p, code, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ck, S = p .. code, '\\31'
local expires = tonumber(redis.call('HGET', ck, 'expires') or 0)
local alive = expires > now
local function keep(key) redis.call('PEXPIREAT', key, math.floor(expires * 1000) + 1) end
local function current(question) return tonumber(redis.call('HGET', ck .. ':rounds', question) or 0) end
"""
# The starts sweep, shared by CREATE and PURGE: callers whose window ended are forgotten.
SWEEP_STARTS = """
local zs, ns = p .. 'starts', p .. 'starts:n'
for _, caller in ipairs(redis.call('ZRANGEBYSCORE', zs, '-inf', now)) do redis.call('HDEL', ns, caller) end
redis.call('ZREMRANGEBYSCORE', zs, '-inf', now)
"""
CREATE = (
    SWEEP_STARTS
    + """
local zk = p .. 'classes'
redis.call('ZREMRANGEBYSCORE', zk, '-inf', now)
if redis.call('EXISTS', ck) == 1 then return {'taken', 0, '0'} end
local worst, worst_count = nil, 0
for i = 10, #ARGV, 2 do  -- the starters: caller, limit
  local ends_at = redis.call('ZSCORE', zs, ARGV[i])
  local count = tonumber(redis.call('HGET', ns, ARGV[i]) or 0)
  if ends_at and count >= tonumber(ARGV[i + 1]) and (not worst or tonumber(ends_at) > tonumber(worst)) then
    worst, worst_count = ends_at, count
  end
end
if worst then return {'starts', worst_count, worst} end
if redis.call('ZCARD', zk) >= tonumber(ARGV[6]) then return {'classes', 0, '0'} end
redis.call('HSET', ck, 'secret', ARGV[5], 'created', ARGV[3], 'expires', ARGV[4], 'ends', ARGV[7],
           'current', '', 'version', 0, 'page', '', 'params', '{}')
redis.call('PEXPIREAT', ck, math.floor(tonumber(ARGV[4]) * 1000) + 1)
redis.call('ZADD', zk, ARGV[4], code)
for i = 10, #ARGV, 2 do
  if redis.call('ZSCORE', zs, ARGV[i]) then
    redis.call('HINCRBY', ns, ARGV[i], 1)
  else
    redis.call('ZADD', zs, now + tonumber(ARGV[8]), ARGV[i])
    redis.call('HSET', ns, ARGV[i], 1)
  end
end
local extra = redis.call('ZCARD', zs) - tonumber(ARGV[9])
if extra > 0 then  -- the callers counted longest ago go: the set stays bounded
  for _, caller in ipairs(redis.call('ZRANGE', zs, 0, extra - 1)) do redis.call('HDEL', ns, caller) end
  redis.call('ZREMRANGEBYRANK', zs, 0, extra - 1)
end
return {'ok', 0, '0'}
"""
)
SEAT = """
if not alive then return 'unknown' end
local sk = ck .. ':seats'
redis.call('ZADD', sk, now, ARGV[4])
local extra = redis.call('ZCARD', sk) - tonumber(ARGV[5])
if extra > 0 then redis.call('ZPOPMIN', sk, extra) end
keep(sk)
return 'ok'
"""
JOIN = """
if not alive then return 'unknown' end
local sk, student = ck .. ':students', ARGV[4]
if redis.call('HEXISTS', sk, student) == 0 then
  if redis.call('HLEN', sk) >= tonumber(ARGV[7]) then return 'full' end
  redis.call('HSET', sk, student, ARGV[5])
elseif ARGV[6] == '1' then
  redis.call('HSET', sk, student, ARGV[5])
end
local ends = redis.call('HGET', ck, 'ends')
if tonumber(ends) > expires then  -- the first join: the class and all its keys live to its end
  expires = tonumber(ends)
  redis.call('HSET', ck, 'expires', ends)
  redis.call('ZADD', p .. 'classes', ends, code)
  for _, key in ipairs({ck, ck .. ':seats', ck .. ':rounds'}) do keep(key) end
  for _, q in ipairs(redis.call('HKEYS', ck .. ':rounds')) do
    keep(ck .. ':q:' .. q)
    keep(ck .. ':a:' .. q)
  end
end
keep(sk)
return 'ok'
"""
# A count of one position in one round, kept without its zeros.
COUNTS = """
local function count_of(qk, n, position, by)
  local field = 'count' .. S .. n .. S .. position
  if redis.call('HINCRBY', qk, field, by) <= 0 then redis.call('HDEL', qk, field) end
end
"""
LEAVE = (
    COUNTS
    + """
local student = ARGV[4]
redis.call('HDEL', ck .. ':students', student)
local rounds = redis.call('HGETALL', ck .. ':rounds')
for i = 1, #rounds, 2 do
  local qk, ak = ck .. ':q:' .. rounds[i], ck .. ':a:' .. rounds[i]
  for n = 1, tonumber(rounds[i + 1]) do
    local af = n .. S .. student
    local old = redis.call('HGET', ak, af)
    if old and redis.call('HEXISTS', qk, 'revealed' .. S .. n) == 0 then
      redis.call('HDEL', ak, af, 'at' .. S .. af)
      count_of(qk, n, old, -1)
    end
  end
end
return 'ok'
"""
)
ANSWER = (
    COUNTS
    + """
if not alive then return 'unknown' end
local student, question, n, position = ARGV[4], ARGV[5], tonumber(ARGV[6]), ARGV[7]
if redis.call('HEXISTS', ck .. ':students', student) == 0 then return 'not_joined' end
local now_round = current(question)
if now_round == 0 then return 'not_asked' end
if n ~= now_round then return 'stale' end
local qk, ak = ck .. ':q:' .. question, ck .. ':a:' .. question
if redis.call('HEXISTS', qk, 'revealed' .. S .. n) == 1 then return 'revealed' end
local size = tonumber(redis.call('HGET', qk, 'size' .. S .. n) or 0)
if size == 0 then size = tonumber(ARGV[8]) end
if tonumber(position) >= size then return 'position' end
local af = n .. S .. student
local old = redis.call('HGET', ak, af)
if old ~= position then
  count_of(qk, n, position, 1)
  if old then count_of(qk, n, old, -1) end
end
redis.call('HSET', ak, af, position, 'at' .. S .. af, ARGV[3])
keep(ak)
return 'ok'
"""
)
ASK = """
if not alive then return {'unknown', 0} end
local question, rk = ARGV[4], ck .. ':rounds'
local qk, n = ck .. ':q:' .. question, current(question)
if n > 0 and ARGV[5] ~= '1' then
  local open = redis.call('HEXISTS', qk, 'revealed' .. S .. n) == 0
  local shown = redis.call('HMGET', qk, 'options' .. S .. n, 'page' .. S .. n, 'params' .. S .. n)
  local same = shown[1] == ARGV[8] and shown[2] == ARGV[10] and shown[3] == ARGV[11]
  if (open and redis.call('HGET', ck, 'current') == question) or same then
    redis.call('HSET', ck, 'current', question)
    return {'ok', n}
  end
end
if n == 0 then
  if redis.call('HLEN', rk) >= tonumber(ARGV[6]) then return {'questions', 0} end
  redis.call('HSET', qk, 'asked', redis.call('HLEN', rk))
elseif n >= tonumber(ARGV[7]) then
  return {'rounds', n}
end
n = n + 1
redis.call('HSET', rk, question, n)
redis.call('HSET', qk, 'opened' .. S .. n, ARGV[3], 'options' .. S .. n, ARGV[8], 'size' .. S .. n, ARGV[9],
           'page' .. S .. n, ARGV[10], 'params' .. S .. n, ARGV[11])
redis.call('HSET', ck, 'current', question)
keep(rk)
keep(qk)
return {'ok', n}
"""
REVEAL = """
if not alive then return 'unknown' end
local n = current(ARGV[4])
if n == 0 then return 'not_asked' end
redis.call('HSET', ck .. ':q:' .. ARGV[4], 'revealed' .. S .. n, 1)
return 'ok'
"""
# A read in one step: the class's current question and its current round's fields.
VOTE = """
if not alive then return {0} end
local question = redis.call('HGET', ck, 'current')
local n = current(question)
if n == 0 then return {1} end
local fields = {}
for _, name in ipairs({'options', 'page', 'params', 'revealed', 'opened'}) do
  table.insert(fields, name .. S .. n)
end
local found = redis.call('HMGET', ck .. ':q:' .. question, unpack(fields))
return {1, question, n, found[1], found[2], found[3], found[4] or '', found[5]}
"""
SEND_VIEW = """
if not alive then return -1 end
redis.call('HSET', ck, 'page', ARGV[4], 'params', ARGV[5])
return redis.call('HINCRBY', ck, 'version', 1)
"""
DELETE = """
local existed = redis.call('EXISTS', ck)
for _, q in ipairs(redis.call('HKEYS', ck .. ':rounds')) do
  redis.call('DEL', ck .. ':q:' .. q, ck .. ':a:' .. q)
end
redis.call('DEL', ck, ck .. ':seats', ck .. ':students', ck .. ':rounds')
redis.call('ZREM', p .. 'classes', code)
return existed
"""
PURGE = (
    SWEEP_STARTS
    + """
redis.call('ZREMRANGEBYSCORE', p .. 'classes', '-inf', now)
return 'ok'
"""
)
