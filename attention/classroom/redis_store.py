"""RedisStore: classes in a Redis server, for servers on several machines (one Redis, no cluster).

Every change is one Lua script, which Redis runs alone: a check and its write ("is the class
full?" then "join") can never interleave with another's. Every key of a class expires with the
class (PEXPIREAT its end; an empty class's soon, moved to its end at the first join), so Redis
deletes an expired class's data by itself. Keys, under a prefix (PREFIX by default), for a class
CODE (\\x1f, a control character no value may hold, separates the parts of a field):

    CODE            hash: secret (its SHA-256), created, expires, ends, current, version, page, params
    CODE:seats      sorted set: teachers' seats (their SHA-256) by when they were made
    CODE:students   hash: student -> nickname (a student who leaves is deleted)
    CODE:rounds     hash: question -> its current round
    CODE:q:QUESTION hash: asked (its place among the questions), and per round N: opened␟N,
                    revealed␟N, options␟N (the texts, JSON), size␟N (how many), page␟N, params␟N,
                    count␟N␟POSITION
    CODE:a:QUESTION hash: N␟STUDENT -> position, at␟N␟STUDENT -> when
    classes         sorted set: open codes by their expiry (the limit on classes, the admin's list)
    starts          sorted set: callers by the end of their window; starts:n hash: caller -> starts
    tries:CALLER    wrong codes counted since the first, expiring with the window

A page waits briefly for a Redis that is down or slow (TIMEOUTS), then gets ClassError kind
"store"; a connection that failed is dropped, so the first call after Redis is back works.
"""

from __future__ import annotations

import json

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from attention.classroom.backend import Answer, Asked, Listed
from attention.classroom.records import Round, Tally, View, Vote
from attention.classroom.redis_scripts import (
    ANSWER,
    ASK,
    CREATE,
    DELETE,
    JOIN,
    LEAVE,
    PRELUDE,
    PURGE,
    REVEAL,
    SEAT,
    SEND_VIEW,
    VOTE,
)
from attention.classroom.rules import Limits
from attention.classroom.store import Store

PREFIX = "attention:class:"
SEP = "\x1f"
CONNECTIONS = 32  # per process: a script runs in well under a millisecond
# Seconds a page waits: to connect, for an answer, for a free connection of the pool. A store
# that is down costs each page about this much before it says so, not Redis's 10-second waits.
TIMEOUTS = {"socket_connect_timeout": 1.0, "socket_timeout": 2.0, "timeout": 2.0}


class RedisStore(Store):
    FAILURES = (redis.RedisError, OSError)

    def __init__(self, url: str, limits: Limits | None = None, prefix: str = PREFIX):
        super().__init__(limits)
        self.prefix = prefix
        # A client is a pool of connections, safe to share between threads. A blocking pool: with
        # more threads than connections, a thread waits for one (redis-py's default pool raises
        # MaxConnectionsError past 100, measured with 200 students joining at once). One retry on
        # a broken connection: the first command after Redis restarts finds its socket closed,
        # and a fresh connection is all it needs; a Redis that is down fails that retry at once.
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=CONNECTIONS,
            decode_responses=True,
            retry=Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
            retry_on_error=[redis.ConnectionError],
            **TIMEOUTS,
        )
        self.redis = redis.Redis(connection_pool=pool)
        scripts = {"create": CREATE, "seat": SEAT, "join": JOIN, "leave": LEAVE, "answer": ANSWER}
        scripts |= {"ask": ASK, "reveal": REVEAL, "vote": VOTE, "send_view": SEND_VIEW}
        scripts |= {"delete": DELETE, "purge": PURGE}
        self._scripts = {name: self.redis.register_script(PRELUDE + body) for name, body in scripts.items()}

    def _failure(self, error: BaseException) -> str:
        if isinstance(error, redis.TimeoutError):
            return "slow"
        return "unreachable" if isinstance(error, redis.ConnectionError | OSError) else ""

    def _run(self, script: str, code: str, now: float, *args: object):
        return self._scripts[script](args=[self.prefix, code, repr(now), *args])

    def _key(self, code: str, part: str = "") -> str:
        return self.prefix + code + part

    def _purge(self, now: float) -> None:
        """Redis deletes each key of a class as the class ends; the list of open classes and the
        counts of starts are pruned here (and by each new class)."""
        self._run("purge", "", now)

    def _create(
        self, code: str, secret_hash: str, now: float, expires: float, ends: float, starters: dict[str, int]
    ) -> tuple[str, int, float]:
        limits, pairs = self.limits, [x for caller, limit in starters.items() for x in (caller, limit)]
        status, count, until = self._run(
            "create", code, now, repr(expires), secret_hash, limits.classes, repr(ends),
            limits.starts_window, limits.callers, *pairs,
        )  # fmt: skip
        return status, int(count), float(until)

    def _fields(self, code: str, now: float, *names: str) -> list[str] | None:
        expires, *values = self.redis.hmget(self._key(code), ["expires", *names])
        return values if expires and float(expires) > now else None

    def _exists(self, code: str, now: float) -> bool:
        return self._fields(code, now) is not None

    def _credentials(self, code: str, now: float) -> list[str] | None:
        with self.redis.pipeline() as pipe:  # MULTI: one moment
            pipe.hmget(self._key(code), ["expires", "secret"])
            pipe.zrange(self._key(code, ":seats"), 0, -1)
            (expires, secret), seats = pipe.execute()
        return [secret, *seats] if expires and float(expires) > now else None

    def _seat(self, code: str, seat_hash: str, now: float) -> str:
        return self._run("seat", code, now, seat_hash, self.limits.seats)

    def _join(self, code: str, student: str, nickname: str | None, now: float) -> str:
        named = "0" if nickname is None else "1"
        return self._run("join", code, now, student, nickname or "", named, self.limits.students)

    def _is_student(self, code: str, student: str, now: float) -> bool:
        with self.redis.pipeline() as pipe:
            pipe.hget(self._key(code), "expires")
            pipe.hexists(self._key(code, ":students"), student)
            expires, here = pipe.execute()
        return bool(expires and float(expires) > now and here)

    def _picked(self, code: str, student: str, question: str, round: int, now: float) -> int | None:
        with self.redis.pipeline() as pipe:
            pipe.hget(self._key(code), "expires")
            pipe.hget(self._key(code, ":a:" + question), f"{round}{SEP}{student}")
            expires, position = pipe.execute()
        return int(position) if position is not None and expires and float(expires) > now else None

    def _leave(self, code: str, student: str, now: float) -> None:
        self._run("leave", code, now, student)

    def _answer(self, code: str, student: str, question: str, round: int, position: int, now: float) -> str:
        return self._run("answer", code, now, student, question, round, position, self.limits.options)

    def _ask(
        self,
        code: str,
        question: str,
        options_json: str,
        size: int,
        page: str,
        params_json: str,
        now: float,
        again: bool,
    ) -> tuple[str, int]:
        limits = self.limits
        status, number = self._run(
            "ask", code, now, question, int(again), limits.questions, limits.rounds,
            options_json, size, page, params_json,
        )  # fmt: skip
        return status, int(number)

    def _reveal(self, code: str, question: str, now: float) -> str:
        return self._run("reveal", code, now, question)

    def _tally(self, code: str, question: str, now: float) -> Tally | None:
        with self.redis.pipeline() as pipe:  # MULTI: one moment
            pipe.hget(self._key(code), "expires")
            pipe.hlen(self._key(code, ":students"))
            pipe.hgetall(self._key(code, ":q:" + question))
            expires, joined, fields = pipe.execute()
        if not expires or float(expires) <= now:
            return None
        rounds = _rounds(fields)
        made = (
            Round(n, opened, shown, sum(counts.values()), counts, options, page, params)
            for n, (opened, shown, options, counts, page, params) in sorted(rounds.items())
        )
        return Tally(question, joined, tuple(made))

    def _vote(self, code: str, now: float) -> tuple[bool, Vote | None]:
        alive, *found = self._run("vote", code, now)
        if not alive or not found:
            return bool(alive), None
        question, number, options, page, params, revealed, opened = found
        vote = Vote(
            question,
            int(number),
            tuple(json.loads(options)),
            page,
            json.loads(params),
            bool(revealed),
            float(opened),
        )
        return True, vote

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

    def _joined(self, code: str, now: float) -> int | None:
        with self.redis.pipeline() as pipe:
            pipe.hget(self._key(code), "expires")
            pipe.hlen(self._key(code, ":students"))
            expires, joined = pipe.execute()
        return joined if expires and float(expires) > now else None

    def _send_view(self, code: str, page: str, params_json: str, now: float) -> int | None:
        version = self._run("send_view", code, now, page, params_json)
        return None if version < 0 else version

    def _view(self, code: str, now: float) -> View | None:
        found = self._fields(code, now, "version", "page", "params")
        return View(int(found[0]), found[1], json.loads(found[2])) if found else None

    def _export(self, code: str, now: float) -> tuple[list[Asked], list[Answer]]:
        if self._fields(code, now) is None:
            return [], []
        questions = self.redis.hkeys(self._key(code, ":rounds"))
        with self.redis.pipeline() as pipe:
            pipe.hgetall(self._key(code, ":students"))
            for question in questions:
                pipe.hgetall(self._key(code, ":q:" + question))
                pipe.hgetall(self._key(code, ":a:" + question))
            names, *found = pipe.execute()
        rounds, answers = [], []
        for question, fields, given in zip(questions, found[::2], found[1::2], strict=True):
            asked = int(fields.get("asked", 0))
            for n, (opened, _, options, *_) in _rounds(fields).items():
                rounds.append((question, asked, n, opened, options))
            for name, position in given.items():
                number, student = name.split(SEP, 1)
                if number != "at":
                    at = float(given[f"at{SEP}{name}"])
                    answers.append(
                        (question, int(number), int(position), student, at, names.get(student, ""))
                    )
        return rounds, answers

    def _delete(self, code: str) -> None:
        self._run("delete", code, 0.0)

    def _open_codes(self, now: float) -> list[str]:
        return self.redis.zrangebyscore(self.prefix + "classes", f"({now!r}", "+inf")

    def _classes(self, now: float) -> list[Listed]:
        found = self._open_codes(now)
        with self.redis.pipeline() as pipe:
            for code in found:
                pipe.hmget(self._key(code), ["created", "expires"])
                pipe.hlen(self._key(code, ":students"))
                pipe.hlen(self._key(code, ":rounds"))
            answers = pipe.execute()
        listed = []
        for code, (created, expires), students, questions in zip(
            found, answers[::3], answers[1::3], answers[2::3], strict=True
        ):
            if expires and float(expires) > now:
                listed.append((code, float(created), float(expires), students, questions))
        return listed

    def _close_all(self, now: float) -> int:
        closed = 0
        for code in self.redis.zrange(self.prefix + "classes", 0, -1):
            closed += bool(self._run("delete", code, now))
        return closed

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


def _rounds(fields: dict[str, str]) -> dict[int, tuple]:
    """A question's hash read back: round -> (opened, revealed, options, counts by position, the
    page and the params it was asked on)."""
    opened, revealed, options, counts, pages, params = {}, set(), {}, {}, {}, {}
    for name, value in fields.items():
        kind, *rest = name.split(SEP, 2)
        if kind == "opened":
            opened[int(rest[0])] = float(value)
        elif kind == "revealed":
            revealed.add(int(rest[0]))
        elif kind == "options":
            options[int(rest[0])] = tuple(json.loads(value))
        elif kind == "count":
            counts.setdefault(int(rest[0]), {})[int(rest[1])] = int(value)
        elif kind == "page":
            pages[int(rest[0])] = value
        elif kind == "params":
            params[int(rest[0])] = json.loads(value)
    view = {n: (pages.get(n, ""), params.get(n, {})) for n in opened}
    return {n: (opened[n], n in revealed, options.get(n, ()), counts.get(n, {}), *view[n]) for n in opened}
