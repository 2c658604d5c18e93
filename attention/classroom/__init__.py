"""Class mode's backend: a teacher's class, students (a browser each) who join it with a short code,
the votes the teacher asks (a question, its options, the view it was asked on) and the answers held
until the teacher reveals them, the view the teacher sends, and the store that keeps it all for
every thread, process and server (SQLite by default, Redis).

store.py         Store: every operation and its rules (codes, secrets and seats, starts per caller,
                 limits), whatever the store; a store's failure is ClassError kind "store"
backend.py       Backend: what a store implements for Store (one atomic step per change)
sqlite_store.py  SQLiteStore: one file, WAL, shared by the replicas on one machine
sqlite_file.py   SQLiteFile: its connections, transactions, tables, and the log emptied
redis_store.py   RedisStore: a Redis server, for servers on several machines
redis_scripts.py its Lua scripts, one per change
config.py        open_store(): ATTENTION_CLASS_STORE, else SQLite in this account's own folder
codes.py         join codes (K7QX-M2P9R, 45 bits), teachers' secrets and seats (192 bits, kept
                 hashed), links
rules.py         Limits, and every value from outside cleaned or refused (nicknames, options...)
records.py       Tally and Round, Vote, View, Row (the export) and to_csv, ClassInfo (the admin's)
errors.py        ClassError: one message per thing that went wrong, for the person at the page
__main__.py      python -m attention.classroom new | export | close | list | close-all | purge
"""

from attention.classroom.config import open_store
from attention.classroom.errors import ClassError
from attention.classroom.records import ClassInfo, Round, Row, Tally, View, Vote, to_csv
from attention.classroom.rules import Limits
from attention.classroom.sqlite_store import SQLiteStore
from attention.classroom.store import Store

__all__ = [
    "ClassError",
    "ClassInfo",
    "Limits",
    "Round",
    "Row",
    "SQLiteStore",
    "Store",
    "Tally",
    "View",
    "Vote",
    "open_store",
    "to_csv",
]
