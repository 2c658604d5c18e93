"""Join codes and teachers' secrets: how they are drawn, written, read back and checked.

A join code is 9 characters of Crockford's base32 (45 random bits, no I, L, O or U), shown as
`K7QX-M2P9R`. Read back in any case, with dashes or spaces, and with the usual confusions
repaired (O is 0; I and L are 1), so a code read aloud or copied from a projector still works.
Guessing one is slow as well as unlikely: Store.find counts wrong codes per caller.

A teacher's secret is 192 random bits (secrets.token_urlsafe(24)), and so is each seat's token (a
teacher's session, Store.seat). Stores keep only its SHA-256:
a secret that long needs no slow hash, since nobody can try 2^192 candidates against it. It is
compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlencode

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32
LENGTH = 9  # 45 bits: a guess in 2^45 (35 trillion), at 10 guesses a minute per caller
BITS = LENGTH * 5
SPLIT = 4  # K7QX-M2P9R: short groups are easier to read aloud
REPAIRED = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})
SECRET_BYTES = 24  # 192 bits


def new_code() -> str:
    """A fresh code, as it is shown (K7QX-M2P9R)."""
    return shown("".join(secrets.choice(ALPHABET) for _ in range(LENGTH)))


def shown(canonical: str) -> str:
    return f"{canonical[:SPLIT]}-{canonical[SPLIT:]}"


def canonical(typed: object) -> str | None:
    """The code a person typed or a link carried, as stores keep it (9 characters, no dash), or
    None when it cannot be a code at all."""
    if not isinstance(typed, str) or len(typed) > 4 * LENGTH:
        return None
    code = "".join(typed.split()).upper().translate(REPAIRED)
    return code if len(code) == LENGTH and all(c in ALPHABET for c in code) else None


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def same_secret(given: object, stored_hash: str) -> bool:
    """Whether `given` is the secret whose hash is `stored_hash` (constant time; anything that is
    not a non-empty string is no secret)."""
    if not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(hashed(given), stored_hash)


def same_credential(given: object, stored_hashes: list[str]) -> bool:
    """Whether `given` is any of the secrets whose hashes are `stored_hashes` (a class's teacher's
    secret and its seats): each compared in constant time, every one of them compared."""
    if not isinstance(given, str) or not given:
        return False
    mine = hashed(given)
    found = [hmac.compare_digest(mine, stored) for stored in stored_hashes]
    return any(found)


def join_query(code: str) -> str:
    """What a student's link adds to the app's address: ?class=K7QX-M2P9R."""
    return "?" + urlencode({"class": code})


def teacher_query(code: str, secret: str) -> str:
    """The teacher's link: ?class=K7QX-M2P9R&teacher=SECRET (keep it to yourself)."""
    return "?" + urlencode({"class": code, "teacher": secret})
