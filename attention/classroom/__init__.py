"""Class mode's backend: a teacher's class, students who join it with a short code, their answers to
the predict-first questions held until the teacher reveals them, the view the teacher sends, and
the store that keeps it all for every thread, process and server (SQLite by default, Redis).

store.py         Store: every operation and its rules (codes, secrets, limits), whatever the store
sqlite_store.py  SQLiteStore: one file, WAL, shared by the replicas on one machine
redis_store.py   RedisStore: a Redis server, for servers on several machines
config.py        open_store(): ATTENTION_CLASS_STORE, else SQLite in this account's own folder
codes.py         join codes (K7QX-M2P9R, 45 bits), teachers' secrets (192 bits, kept hashed), links
rules.py         Limits, and every value from outside cleaned or refused (nicknames, questions...)
records.py       Tally and Round, View, Row (the export) and to_csv
errors.py        ClassError: one message per thing that went wrong, for the person at the page
__main__.py      python -m attention.classroom new | export | close
"""

from attention.classroom.config import open_store
from attention.classroom.errors import ClassError
from attention.classroom.records import Round, Row, Tally, View, to_csv
from attention.classroom.rules import Limits
from attention.classroom.sqlite_store import SQLiteStore
from attention.classroom.store import Store

__all__ = [
    "ClassError",
    "Limits",
    "Round",
    "Row",
    "SQLiteStore",
    "Store",
    "Tally",
    "View",
    "open_store",
    "to_csv",
]
