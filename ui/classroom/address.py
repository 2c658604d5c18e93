"""Addresses in a class: the one students' phones open (the join link and its QR code), and the
visitor's own (whom limits count against).

st.context.url is the address the teacher's browser used: `http://localhost:8501` for a teacher
at the server's own keyboard, which no phone can open. The join link uses, in order: the
administrator's ATTENTION_PUBLIC_URL; the address the teacher used when it is not loopback; the
address Streamlit listens on (--server.address) when it is one; else this machine's network
address. A server that listens on loopback alone says that phones cannot join, and how to fix it.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import socket
from urllib.parse import urlsplit

import streamlit as st

from attention import settings
from attention.i18n import tr

EVERY_INTERFACE = ("", "0.0.0.0", "::")


def is_loopback(host: str | None) -> bool:
    host = (host or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_base() -> tuple[str, str | None]:
    """(the app's address as students' phones open it, a warning for the teacher or None)."""
    public = settings.current().public_url
    if public:
        return public, None
    here = urlsplit(st.context.url or "http://localhost:8501/")
    used = f"{here.scheme or 'http'}://{here.netloc or 'localhost:8501'}"
    if not is_loopback(here.hostname):
        return used, None
    listens = listening()
    port = here.port or st.get_option("server.port")
    if listens not in EVERY_INTERFACE and not is_loopback(listens):
        return f"{here.scheme or 'http'}://{_host(listens)}:{port}", None
    if listens in EVERY_INTERFACE and (found := network_address()):
        return f"{here.scheme or 'http'}://{_host(found)}:{port}", None
    return used, tr(
        "Phones cannot open this link, because this server answers only this computer ({address}). Restart "
        "the server with --server.address 0.0.0.0 so that others on your network can reach it, or set "
        "ATTENTION_PUBLIC_URL to the address students can open.",
        address=listens or "localhost",
    )


def listening() -> str:
    """The address Streamlit listens on ("" for every interface, its default)."""
    return str(st.get_option("server.address") or "").strip().strip("[]")


def _host(ip: str) -> str:
    return f"[{ip}]" if ":" in ip else ip


@functools.cache
def network_address() -> str | None:
    """This machine's address on its network (the first IPv4 address that is not loopback), or
    None. Looked up once per process, without sending anything."""
    with contextlib.suppress(OSError):
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            if not ipaddress.ip_address(sockaddr[0]).is_loopback:
                return sockaddr[0]
    return _interface_address()


def _interface_address() -> str | None:
    """Linux: the first non-loopback IPv4 address of a network interface (SIOCGIFADDR)."""
    try:
        import fcntl
        import struct
    except ImportError:  # not POSIX
        return None
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            with contextlib.suppress(OSError):
                packed = fcntl.ioctl(probe.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))
                ip = socket.inet_ntoa(packed[20:24])
                if not ipaddress.ip_address(ip).is_loopback:
                    return ip
    return None


def visitor() -> str:
    """The visitor's address (forwarded_for on this request)."""
    peer = st.context.ip_address
    peer = peer if isinstance(peer, str) and peer else "127.0.0.1"  # Streamlit: None for loopback
    header = str(st.context.headers.get("X-Forwarded-For") or "")
    return forwarded_for(peer, header, settings.current().trusted_proxies)


def forwarded_for(peer: str, header: str, trusted: frozenset[str]) -> str:
    """The visitor's address: the connection's own (`peer`), or, when that is a proxy the
    administrator trusts (ATTENTION_TRUSTED_PROXIES), the last address in X-Forwarded-For that a
    trusted proxy did not add. A header from anyone else is ignored: a visitor could write anything."""
    if peer not in trusted:
        return peer
    for hop in reversed([h.strip() for h in header.split(",") if h.strip()]):
        if hop not in trusted:
            return hop[:64]
    return peer


def network_of(ip: str) -> str:
    """Whom per-address limits count: an IPv4 address itself, an IPv6 address's /64 (one home or
    phone has a whole /64: 2^64 addresses to rotate through)."""
    try:
        found = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    return str(ipaddress.ip_network(f"{found}/64", strict=False)) if found.version == 6 else str(found)
