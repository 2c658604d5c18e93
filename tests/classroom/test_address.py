"""Whom class mode's limits count (ui/classroom/address.py): X-Forwarded-For only from a proxy the
administrator trusts, IPv6 by its /64."""

from ui.classroom.address import forwarded_for, is_loopback, network_of

NGINX = frozenset({"127.0.0.1"})


def test_a_header_from_an_untrusted_peer_is_ignored():
    assert forwarded_for("203.0.113.9", "198.51.100.1", NGINX) == "203.0.113.9"
    assert forwarded_for("203.0.113.9", "198.51.100.1", frozenset()) == "203.0.113.9"


def test_the_rightmost_hop_a_trusted_proxy_did_not_add_is_the_visitor():
    # the visitor wrote a fake first hop; nginx appended the address it saw
    assert forwarded_for("127.0.0.1", "10.9.9.9, 203.0.113.9", NGINX) == "203.0.113.9"
    two = frozenset({"127.0.0.1", "192.0.2.1"})
    assert forwarded_for("127.0.0.1", "203.0.113.9, 192.0.2.1", two) == "203.0.113.9"


def test_a_chain_of_trusted_proxies_only_is_the_peer():
    assert forwarded_for("127.0.0.1", "127.0.0.1", NGINX) == "127.0.0.1"
    assert forwarded_for("127.0.0.1", "", NGINX) == "127.0.0.1"


def test_ipv6_is_counted_by_its_64():
    assert network_of("2001:db8:1:2:aaaa::1") == network_of("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")
    assert network_of("203.0.113.9") == "203.0.113.9" and network_of("not an address") == "not an address"


def test_loopback_names():
    assert is_loopback("localhost") and is_loopback("127.0.0.2") and is_loopback("[::1]")
    assert not is_loopback("192.0.2.7") and not is_loopback("class.example.org")
