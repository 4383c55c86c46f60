"""Where participants' endpoints may lead: public addresses only, unless the operator allows more.

A participant (an intent team) gives a URL that the server then calls, so without a rule a team
could make the server call what only the server can reach: its own services on loopback, the
private network, link-local addresses and the cloud's metadata service (169.254.169.254,
fd00:ec2::254, 100.100.100.200). Such addresses are refused unless they are in one of the
networks of ``ENDPOINT_PRIVATE_NETWORKS`` (``EVALSITE_ENDPOINT_PRIVATE_NETWORKS``, CIDR blocks;
empty by default). An address is public when Python's ``ipaddress`` calls it global, is not
multicast, and embeds no refused IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64).

The check runs twice. When the URL is saved, a host written as an address, or ``localhost``,
is refused with the reason: that tells its writer nothing they did not write. Then at request
time :class:`PublicAddressTransport` resolves the host, checks every address it resolves to and
connects to a checked address itself (the Host header and TLS name stay the host's), so a name
that resolves elsewhere between the check and the call (DNS rebinding) gains nothing.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.utils.translation import gettext as _

from evalsite.endpoint_url import EndpointURLError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolve = Callable[[str, int], list[str]]
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class AddressRefused(httpx.ConnectError):
    """The host resolves to an address that participants' endpoints may not reach."""


def allowed_networks() -> list[Network]:
    return [ipaddress.ip_network(item, strict=False) for item in settings.ENDPOINT_PRIVATE_NETWORKS]


def is_allowed(address: Address, networks: Sequence[Network]) -> bool:
    """Whether a participant's endpoint may be at ``address``."""
    if any(address in network for network in networks):
        return True
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return is_allowed(embedded, networks)
    return address.is_global and not address.is_multicast


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def check_written_host(url: str) -> None:
    """EndpointURLError when ``url`` (checked for form already) names a refused address."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        raise EndpointURLError(_("%(host)s is this server itself") % {"host": host})
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return
    if not is_allowed(address, allowed_networks()):
        raise EndpointURLError(
            _("%(address)s is not a public address, and this site calls only public ones")
            % {"address": address}
        )


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, in the resolver's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class PublicAddressTransport(httpx.BaseTransport):
    """An HTTP transport that calls only allowed addresses; see the module's description."""

    def __init__(self, resolver: Resolve = resolve, **transport: Any) -> None:
        self._resolve = resolver
        self._inner = httpx.HTTPTransport(**transport)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        try:
            found = [ipaddress.ip_address(item) for item in self._resolve(host, port)]
        except (OSError, UnicodeError, ValueError) as error:
            raise httpx.ConnectError(
                f"{host} cannot be resolved: {error}", request=request
            ) from None
        if not found:
            raise httpx.ConnectError(f"{host} resolves to no address", request=request)
        networks = allowed_networks()
        for address in found:
            if not is_allowed(address, networks):
                raise AddressRefused(
                    f"{host} resolves to {address}, which is not a public address",
                    request=request,
                )
        request.url = request.url.copy_with(host=str(found[0]))
        request.extensions = {**request.extensions, "sni_hostname": host}
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()
