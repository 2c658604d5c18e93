"""RedisStore: classes in a Redis server, for servers on several machines (one Redis, no cluster).

Every change is one Lua script, which Redis runs alone: a check and its write ("is the class
full?" then "join") can never interleave with another's. Every key of a class expires with the
class (PEXPIREAT its end), so Redis deletes an expired class's data by itself. Keys, under a
prefix (PREFIX by default), for a class CODE (\\x1f, a control character no value may hold,
separates the parts of a field):

    CODE            hash: secret (its SHA-256), expires, current, version, page, params
    CODE:joined     set of the students in the class now
    CODE:names      hash: student -> nickname (kept after they leave, for the export)
    CODE:rounds     hash: question -> its current round
    CODE:q:QUESTION hash: opened␟N, revealed␟N, count␟N␟OPTION, options␟N (options answered now)
    CODE:a:QUESTION hash: N␟STUDENT -> option, at␟N␟STUDENT -> when
    classes         sorted set: open codes by their end (the limit on classes)
    tries:CALLER    wrong codes counted since the first, expiring with the window
"""

from __future__ import annotations

import json
import time

import redis

from attention.classroom.records import Round, Tally, View
from attention.classroom.rules import Limits
from attention.classroom.store import Answer, Store

PREFIX = "attention:class:"
SEP = "\x1f"
CONNECTIONS = 32  # per process: a script runs in well under a millisecond
PRELUDE = """
local p, code, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ck, S = p .. code, '\\31'
local expires = tonumber(redis.call('HGET', ck, 'expires') or 0)
local alive = expires > now
local function keep(key) redis.call('PEXPIREAT', key, math.floor(expires * 1000) + 1) end
local function round_of(question, again, max_questions, max_rounds)
  local rk, qk = ck .. ':rounds', ck .. ':q:' .. question
  local n = tonumber(redis.call('HGET', rk, question) or 0)
  if n == 0 then
    if redis.call('HLEN', rk) >= max_questions then return 'questions', 0 end
  elseif again ~= '1' then return 'ok', n
  elseif n >= max_rounds then return 'rounds', n end
  n = n + 1
  redis.call('HSET', rk, question, n)
  redis.call('HSET', qk, 'opened' .. S .. n, ARGV[3])
  keep(rk)
  keep(qk)
  return 'ok', n
end
"""
CREATE = """
local zk = p .. 'classes'
redis.call('ZREMRANGEBYSCORE', zk, '-inf', now)
if redis.call('EXISTS', ck) == 1 then return 'taken' end
if redis.call('ZCARD', zk) >= tonumber(ARGV[6]) then return 'classes' end
redis.call('HSET', ck, 'secret', ARGV[5], 'expires', ARGV[4], 'current', '', 'version', 0, 'page', '',
           'params', '{}')
redis.call('PEXPIREAT', ck, math.floor(tonumber(ARGV[4]) * 1000) + 1)
redis.call('ZADD', zk, ARGV[4], code)
return 'ok'
"""
JOIN = """
if not alive then return 'unknown' end
local jk, nk, student = ck .. ':joined', ck .. ':names', ARGV[4]
if redis.call('SISMEMBER', jk, student) == 0 and redis.call('SCARD', jk) >= tonumber(ARGV[6]) then
  return 'full'
end
redis.call('SADD', jk, student)
redis.call('HSET', nk, student, ARGV[5])
keep(jk)
keep(nk)
return 'ok'
"""
ANSWER = """
if not alive then return 'unknown' end
local student, question, option = ARGV[4], ARGV[5], ARGV[6]
if redis.call('SISMEMBER', ck .. ':joined', student) == 0 then return 'not_joined' end
local status, n = round_of(question, '0', tonumber(ARGV[7]), 0)
if status ~= 'ok' then return status end
local qk, ak = ck .. ':q:' .. question, ck .. ':a:' .. question
if redis.call('HEXISTS', qk, 'revealed' .. S .. n) == 1 then return 'revealed' end
local af, of = n .. S .. student, 'options' .. S .. n
local function field(o) return 'count' .. S .. n .. S .. o end
local function count(o) return tonumber(redis.call('HGET', qk, field(o)) or 0) end
local old = redis.call('HGET', ak, af)
if old ~= option then
  if count(option) == 0 then  -- an option nobody else holds now: within the limit?
    local others = tonumber(redis.call('HGET', qk, of) or 0)
    if old and count(old) == 1 then others = others - 1 end
    if others >= tonumber(ARGV[8]) then return 'options' end
    redis.call('HINCRBY', qk, of, 1)
  end
  redis.call('HINCRBY', qk, field(option), 1)
  if old and redis.call('HINCRBY', qk, field(old), -1) == 0 then
    redis.call('HDEL', qk, field(old))
    redis.call('HINCRBY', qk, of, -1)
  end
end
redis.call('HSET', ak, af, option, 'at' .. S .. af, ARGV[3])
keep(qk)
keep(ak)
return 'ok'
"""
ASK = """
if not alive then return {'unknown', 0} end
local status, n = round_of(ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]))
if status == 'ok' then redis.call('HSET', ck, 'current', ARGV[4]) end
return {status, n}
"""
REVEAL = """
if not alive then return 'unknown' end
local status, n = round_of(ARGV[4], '0', tonumber(ARGV[5]), 0)
if status == 'ok' then redis.call('HSET', ck .. ':q:' .. ARGV[4], 'revealed' .. S .. n, 1) end
return status
"""
SEND_VIEW = """
if not alive then return -1 end
redis.call('HSET', ck, 'page', ARGV[4], 'params', ARGV[5])
return redis.call('HINCRBY', ck, 'version', 1)
"""
DELETE = """
for _, q in ipairs(redis.call('HKEYS', ck .. ':rounds')) do
  redis.call('DEL', ck .. ':q:' .. q, ck .. ':a:' .. q)
end
redis.call('DEL', ck, ck .. ':joined', ck .. ':names', ck .. ':rounds')
redis.call('ZREM', p .. 'classes', code)
return 'ok'
"""


class RedisStore(Store):
    def __init__(self, url: str, limits: Limits | None = None, prefix: str = PREFIX):
        super().__init__(limits)
        self.prefix = prefix
        # A client is a pool of connections, safe to share between threads. A blocking pool: with
        # more threads than connections, a thread waits for one (redis-py's default pool raises
        # MaxConnectionsError past 100, measured with 200 students joining at once).
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=CONNECTIONS, timeout=10, decode_responses=True, socket_timeout=10
        )
        self.redis = redis.Redis(connection_pool=pool)
        scripts = {"create": CREATE, "join": JOIN, "answer": ANSWER, "ask": ASK, "reveal": REVEAL}
        scripts |= {"send_view": SEND_VIEW, "delete": DELETE}
        self._scripts = {name: self.redis.register_script(PRELUDE + body) for name, body in scripts.items()}

    def _run(self, script: str, code: str, now: float, *args: object):
        return self._scripts[script](args=[self.prefix, code, repr(now), *args])

    def _key(self, code: str, part: str = "") -> str:
        return self.prefix + code + part

    def purge(self) -> None:
        """Redis deletes each key of a class as the class ends; the list of open classes (by their
        end) is pruned here, and by each new class."""
        self.redis.zremrangebyscore(self.prefix + "classes", "-inf", time.time())

    def _create(self, code: str, secret_hash: str, now: float, expires: float) -> str:
        return self._run("create", code, now, repr(expires), secret_hash, self.limits.classes)

    def _fields(self, code: str, now: float, *names: str) -> list[str] | None:
        expires, *values = self.redis.hmget(self._key(code), ["expires", *names])
        return values if expires and float(expires) > now else None

    def _secret(self, code: str, now: float) -> str | None:
        found = self._fields(code, now, "secret")
        return found[0] if found else None

    def _join(self, code: str, student: str, nickname: str, now: float) -> str:
        return self._run("join", code, now, student, nickname, self.limits.students)

    def _leave(self, code: str, student: str, now: float) -> None:
        self.redis.srem(self._key(code, ":joined"), student)

    def _answer(self, code: str, student: str, question: str, option: str, now: float) -> str:
        limits = self.limits
        return self._run("answer", code, now, student, question, option, limits.questions, limits.options)

    def _ask(self, code: str, question: str, now: float, again: bool) -> tuple[str, int]:
        limits = self.limits
        status, number = self._run("ask", code, now, question, int(again), limits.questions, limits.rounds)
        return status, int(number)

    def _reveal(self, code: str, question: str, now: float) -> str:
        return self._run("reveal", code, now, question, self.limits.questions)

    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        with self.redis.pipeline() as pipe:  # MULTI: one moment
            pipe.hget(self._key(code), "expires")
            pipe.scard(self._key(code, ":joined"))
            pipe.hgetall(self._key(code, ":q:" + question))
            expires, joined, fields = pipe.execute()
        if not expires or float(expires) <= now:
            return None
        opened, revealed, counts = {}, set(), {}
        for name, value in fields.items():
            kind, number, *option = name.split(SEP, 2)
            if kind == "opened":
                opened[int(number)] = float(value)
            elif kind == "revealed":
                revealed.add(int(number))
            elif kind == "count":
                counts.setdefault(int(number), {})[option[0]] = int(value)
        rounds = (
            Round(n, opened[n], n in revealed, sum(counts.get(n, {}).values()), counts.get(n, {}))
            for n in sorted(opened)
        )
        return Tally(question, joined, tuple(rounds))

    def _revealed(self, code: str, questions: list[str], now: float) -> set[str] | None:
        with self.redis.pipeline() as pipe:  # each question's current round, then its mark
            pipe.hget(self._key(code), "expires")
            pipe.hmget(self._key(code, ":rounds"), questions)
            expires, rounds = pipe.execute()
        if not expires or float(expires) <= now:
            return None
        asked = [(q, n) for q, n in zip(questions, rounds, strict=True) if n]
        with self.redis.pipeline() as pipe:
            for question, number in asked:
                pipe.hexists(self._key(code, ":q:" + question), f"revealed{SEP}{number}")
            marks = pipe.execute()
        return {q for (q, _), shown in zip(asked, marks, strict=True) if shown}

    def _about(self, code: str, now: float) -> tuple[int, str] | None:
        with self.redis.pipeline() as pipe:
            pipe.hmget(self._key(code), ["expires", "current"])
            pipe.scard(self._key(code, ":joined"))
            (expires, current), joined = pipe.execute()
        return (joined, current or "") if expires and float(expires) > now else None

    def _send_view(self, code: str, page: str, params_json: str, now: float) -> int | None:
        version = self._run("send_view", code, now, page, params_json)
        return None if version < 0 else version

    def _view(self, code: str, now: float) -> View | None:
        found = self._fields(code, now, "version", "page", "params")
        return View(int(found[0]), found[1], json.loads(found[2])) if found else None

    def _answers(self, code: str, now: float) -> list[Answer]:
        if self._fields(code, now) is None:
            return []
        questions = self.redis.hkeys(self._key(code, ":rounds"))
        with self.redis.pipeline() as pipe:
            pipe.hgetall(self._key(code, ":names"))
            for question in questions:
                pipe.hgetall(self._key(code, ":q:" + question))
                pipe.hgetall(self._key(code, ":a:" + question))
            names, *found = pipe.execute()
        answers = []
        for question, counts, given in zip(questions, found[::2], found[1::2], strict=True):
            for name, option in given.items():
                number, student = name.split(SEP, 1)
                if number != "at":
                    opened, at = float(counts[f"opened{SEP}{number}"]), float(given[f"at{SEP}{name}"])
                    answers.append(
                        (question, int(number), opened, option, student, at, names.get(student, ""))
                    )
        return answers

    def _delete(self, code: str) -> None:
        self._run("delete", code, 0.0)

    def _locked(self, caller: str, now: float) -> float:
        with self.redis.pipeline() as pipe:
            pipe.get(self.prefix + "tries:" + caller)
            pipe.pttl(self.prefix + "tries:" + caller)
            count, left_ms = pipe.execute()
        return left_ms / 1000 if count and int(count) >= self.limits.tries and left_ms > 0 else 0.0

    def _strike(self, caller: str, now: float) -> None:
        key = self.prefix + "tries:" + caller
        with self.redis.pipeline() as pipe:  # the window starts at the first wrong code
            pipe.set(key, 0, px=int(self.limits.window * 1000), nx=True)
            pipe.incr(key)
            pipe.execute()
