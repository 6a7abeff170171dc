"""The load bench's HTTP client: one browser's keep-alive connection, on raw sockets.

Small on purpose: the bench holds thousands of these in one process (9 devices a
table), each with its own cookies and gzip like a real browser, so that what it counts
is the server's time, not a client library's.
"""

from __future__ import annotations

import asyncio
import gzip
import urllib.parse
from typing import Any

REQUEST_TIMEOUT = 10.0

Response = tuple[int, dict[str, str], str, int]  # status, headers, body text, bytes on the wire


class HTTPError(Exception):
    pass


class Device:
    """One browser: one keep-alive connection, its cookies, gzip like a real browser."""

    def __init__(self, port: int, cookies: dict[str, str] | None = None):
        self.port = port
        self.cookies = {} if cookies is None else cookies  # shared by a browser's connections
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, *, form: dict[str, Any] | None = None,
                      headers: dict[str, str] | None = None) -> Response:
        """(status, headers, body text, bytes on the wire) — one retry on a closed socket."""
        for attempt in (0, 1):
            if self.writer is None:
                await self._connect()
            try:
                return await asyncio.wait_for(self._once(method, path, form, headers),
                                              REQUEST_TIMEOUT)
            except (ConnectionError, asyncio.IncompleteReadError, HTTPError) as error:
                self.close()
                if attempt or isinstance(error, HTTPError):
                    raise
            except TimeoutError:
                self.close()
                raise
        raise AssertionError("unreachable")

    async def _once(self, method, path, form, headers):
        """One request on the open connection: send it, read the answer, undo gzip."""
        self.writer.write(self._request_bytes(method, path, form, headers))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, got = self._parse_head(head)
        raw = await self._read_body(method, status, got)
        wire = len(head) + len(raw)
        if got.get("connection", "").lower() == "close":
            self.close()
        if got.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        return status, got, raw.decode("utf-8", "replace"), wire

    def _request_bytes(self, method, path, form, headers) -> bytes:
        """The request on the wire: request line, headers (cookies too), form body."""
        body = b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}",
                 "Accept-Encoding: gzip", "Accept-Language: en"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        if form is not None:
            body = urllib.parse.urlencode(form, doseq=True).encode()
            lines.append("Content-Type: application/x-www-form-urlencoded")
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    def _parse_head(self, head: bytes) -> tuple[int, dict[str, str]]:
        """Status and headers (lower-case names) of an answer; keeps the cookies it sets."""
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        got = {}
        for line in header_lines:
            if ":" in line:
                k, v = line.split(":", 1)
                k, v = k.strip().lower(), v.strip()
                if k == "set-cookie":
                    name, value = v.split(";", 1)[0].split("=", 1)
                    self.cookies[name.strip()] = value.strip()
                got[k] = v
        return status, got

    async def _read_body(self, method: str, status: int, got: dict[str, str]) -> bytes:
        """The raw body of an answer: chunked, none (204, 304, HEAD) or Content-Length."""
        if got.get("transfer-encoding") == "chunked":
            return await self._read_chunked()
        if status in (204, 304) or method == "HEAD":
            return b""
        return await self.reader.readexactly(int(got.get("content-length", 0)))

    async def _read_chunked(self) -> bytes:
        """A chunked body, up to and with its last (empty) chunk."""
        raw = b""
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await self.reader.readexactly(size + 2)
            raw += chunk[:-2]
            if size == 0:
                break
        return raw
