"""A live server's snapshot, read over the replication protocol as ``redis-cli --rdb`` reads it.

The server is named by a URL: ``redis://[user:password@]host:port[/db]``,
``rediss://…`` (TLS) or ``unix:///path/to.sock``; ``?db=N`` names a db as the
path does. The password may also come from ``REDISCLI_AUTH``; it never appears
in a name or an error.
"""

import io
import os
import socket
import tempfile
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import InputError, RdbTruncatedError

SCHEMES = ("redis", "rediss", "unix")
DEFAULT_PORT = 6379
CONNECT_TIMEOUT_S = 5.0
IDLE_TIMEOUT_S = 60.0
# src/replication.c: the diskless form announces the payload as "$EOF:" and a 40-byte mark the payload ends with.
EOF_MARK_BYTES = 40
#: How many of the first bytes a server sent an error shows when they are not what a Redis server says.
SHOWN_ANSWER_BYTES = 40
_CHUNK = 1 << 16


def is_server_url(source) -> bool:
    """True when ``source`` is a string naming a live server (redis://, rediss://, unix://)."""
    return isinstance(source, str) and source.split("://", 1)[0].lower() in SCHEMES and "://" in source


def public_name(url: str) -> str:
    """The URL with any password left out, fit to show (with the db it names, if any)."""
    parts = urlsplit(url)
    db = url_db(url)
    if parts.scheme.lower() == "unix":
        return f"unix://{parts.path}" + (f"?db={db}" if db is not None else "")
    host = parts.hostname or "localhost"
    if ":" in host:
        host = f"[{host}]"
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}:{_port(parts)}" + (f"/{db}" if db is not None else "")


def url_db(url: str) -> int | None:
    """The db a server's URL names (``redis://host:6379/2``, ``...?db=2``, as redis-py reads them), or None.

    SYNC sends every db: the scan keeps this one's keys, as ``db=`` (``--db``) would.

    Raises:
        InputError: a db that is not a whole number, or two that differ.
    """
    parts = urlsplit(url)
    named = [text for text in parse_qs(parts.query).get("db", [])]
    if parts.scheme.lower() != "unix" and parts.path.strip("/"):
        named.append(parts.path.strip("/"))
    if not named:
        return None
    if not all(text.isdigit() for text in named):
        raise InputError(f"{parts.scheme}://{parts.hostname or parts.path}: the db in the URL is not a "
                         f"number ({named[0][:20]!r})")
    dbs = {int(text) for text in named}
    if len(dbs) > 1:
        raise InputError(f"{parts.scheme}://{parts.hostname or parts.path}: the URL names two dbs "
                         f"({', '.join(map(str, sorted(dbs)))})")
    return dbs.pop()


def _port(parts):
    try:
        return parts.port or DEFAULT_PORT
    except ValueError:
        raise InputError(f"{parts.scheme}://{parts.hostname or ''}: the port is not a number") from None


class ReplicationStream(io.RawIOBase):
    """The RDB payload of a full resynchronisation, as a read-only binary stream.

    Connects, authenticates and sends ``SYNC`` on creation; reading yields the
    dump's bytes and ends where the RDB ends (the replication stream after it is
    never read). ``save_dump`` tees the payload to that path, written under a
    temporary name and renamed once the whole payload has arrived.

    Raises:
        InputError: the server cannot be reached, rejects the password, refuses
            SYNC or sends nothing for ``idle_timeout_s`` before the payload.
        RdbTruncatedError: the connection ends (or stalls) before the payload does.
    """

    def __init__(self, url, *, save_dump=None, connect_timeout_s=CONNECT_TIMEOUT_S,
                 idle_timeout_s=IDLE_TIMEOUT_S):
        self.name = public_name(url)
        self.size = None  # the announced payload length; None in the diskless form
        self._idle_timeout_s = idle_timeout_s
        self._received = 0
        self._mark = None
        self._pending = b""  # payload bytes read but not yet given out
        self._tail = b""  # the diskless form's last bytes read, held back until they cannot be the mark
        self._arrived = 0  # payload bytes read from the server
        self._buffer = b""  # bytes read from the socket before the payload started
        self._answer = b""  # the first bytes the server sent, to show when they are not a Redis server's
        self._ended = False
        self._save = None
        self._save_path = None if save_dump is None else os.fspath(save_dump)
        self._sock = self._connect(urlsplit(url), connect_timeout_s)
        try:
            self._sock.settimeout(idle_timeout_s)
            self._authenticate(urlsplit(url))
            self._command(b"REPLCONF", b"capa", b"eof", b"capa", b"psync2")
            self._expect_ok("REPLCONF")
            self._command(b"SYNC")
            if self._save_path is not None:
                self._save = tempfile.NamedTemporaryFile(
                    dir=os.path.dirname(os.path.abspath(self._save_path)),
                    prefix=os.path.basename(self._save_path) + ".", suffix=".partial", delete=False)
            self._read_payload_header()
        except BaseException:
            self.close()
            raise

    # -- connection and handshake

    def _connect(self, parts, timeout_s):
        scheme = parts.scheme.lower()
        try:
            if scheme == "unix":
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(timeout_s)
                try:
                    sock.connect(parts.path)
                except BaseException:
                    sock.close()
                    raise
                return sock
            sock = socket.create_connection((parts.hostname or "localhost", _port(parts)), timeout=timeout_s)
            return self._tls(sock, parts.hostname, timeout_s) if scheme == "rediss" else sock
        except TimeoutError:
            raise InputError(f"{self.name}: no connection within {timeout_s:g} s") from None
        except OSError as exc:
            raise InputError(f"{self.name}: cannot connect ({exc.strerror or exc})") from None

    def _tls(self, sock, hostname, timeout_s):
        """``sock`` (connected) wrapped in TLS; a handshake that fails says so, not that nothing answered."""
        import ssl

        try:
            return ssl.create_default_context().wrap_socket(sock, server_hostname=hostname)
        except TimeoutError:
            sock.close()
            raise InputError(f"{self.name}: the TLS handshake failed: no TLS answer within {timeout_s:g} s "
                             "(a port without TLS? then the URL is redis://)") from None
        except ssl.SSLError as exc:
            sock.close()
            detail = getattr(exc, "verify_message", None)  # why a certificate was not trusted
            said = f"{exc.reason}: {detail}" if exc.reason and detail else exc.reason or exc
            raise InputError(f"{self.name}: the TLS handshake failed ({said})") from None
        except BaseException:
            sock.close()
            raise

    def _authenticate(self, parts):
        password = unquote(parts.password) if parts.password is not None else os.environ.get("REDISCLI_AUTH")
        user = unquote(parts.username) if parts.username else None
        if not password:
            return
        if user:
            self._command(b"AUTH", user.encode(), password.encode())
        else:
            self._command(b"AUTH", password.encode())
        line = self._read_line()
        if not line.startswith(b"+"):
            raise InputError(f"{self.name}: authentication failed ({_error_text(line)})")

    def _expect_ok(self, what):
        line = self._read_line()
        if line.startswith(b"-"):
            raise self._refusal(what, line)
        if not line.startswith(b"+"):
            raise self._unexpected(what)

    def _unexpected(self, what):
        """The error of an answer that is not a Redis server's: it shows the first bytes that came back."""
        return InputError(f"{self.name}: unexpected answer to {what} (not a Redis server?): "
                          f"{shown_answer(self._answer)}")

    def _refusal(self, what, line):
        text = _error_text(line)
        if text.startswith(("NOAUTH", "WRONGPASS")):
            return InputError(f"{self.name}: the server wants a password ({text}); "
                              "give it in the URL or in REDISCLI_AUTH")
        return InputError(f"{self.name}: the server refused {what} ({text}); managed services often do: "
                          "run BGSAVE there, fetch the dump file and read that")

    def _read_payload_header(self):
        line = self._read_line()
        while line == b"":  # src/replication.c sends a newline each second while the snapshot is prepared
            line = self._read_line()
        if line.startswith(b"-"):
            raise self._refusal("SYNC", line)
        if line.startswith(b"$EOF:") and len(line) == 5 + EOF_MARK_BYTES:
            self._mark = line[5:]
        elif line.startswith(b"$") and line[1:].isdigit():
            self.size = int(line[1:])
        else:
            raise self._unexpected("SYNC")
        leftover, self._buffer = self._buffer, b""
        if self._mark is None:
            self._queue(leftover[: self.size])
        else:
            self._tail = leftover

    def _command(self, *words):
        message = b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)
        try:
            self._sock.sendall(message)
        except OSError as exc:
            raise InputError(f"{self.name}: the connection failed ({exc.strerror or exc})") from None

    def _read_line(self):
        while b"\n" not in self._buffer:
            more = self._recv_before_payload()
            if not more:
                raise InputError(f"{self.name}: the server closed the connection before sending a snapshot")
            self._buffer += more
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def _recv_before_payload(self):
        try:
            data = self._sock.recv(_CHUNK)
            self._answer += data[:SHOWN_ANSWER_BYTES + 1 - len(self._answer)]
            return data
        except TimeoutError:
            raise InputError(f"{self.name}: no answer within {self._idle_timeout_s:g} s") from None
        except OSError as exc:
            raise InputError(f"{self.name}: the connection failed ({exc.strerror or exc})") from None

    # -- the payload

    def readable(self):
        return True

    def tell(self):
        """Payload bytes given out so far."""
        return self._received

    def readinto(self, b):
        view = memoryview(b).cast("B")
        if not len(view):
            return 0
        while not self._pending and not self._ended:
            self._fill()
        n = min(len(view), len(self._pending))
        view[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self._received += n
        return n

    def _fill(self):
        if self._mark is None:
            self._queue(self._recv_payload(min(self.size - self._arrived, _CHUNK)))
            return
        # Diskless: the payload ends with the mark, so the last 40 bytes read are held until more come.
        held = self._tail
        at = held.find(self._mark)
        if at < 0:
            held += self._recv_payload(_CHUNK)
            at = held.find(self._mark)
        if at >= 0:
            self._tail = b""
            self._queue(held[:at])
            self._finish()
            return
        keep = max(0, len(held) - EOF_MARK_BYTES)
        self._tail = held[keep:]
        self._queue(held[:keep])

    def _queue(self, data):
        self._arrived += len(data)
        self._pending += data
        if self._save is not None and data:
            self._save.write(data)
        if self._mark is None and self._arrived == self.size:
            self._finish()

    def _recv_payload(self, n):
        try:
            data = self._sock.recv(n)
        except TimeoutError:
            raise self._truncated(f"the server sent nothing for {self._idle_timeout_s:g} s") from None
        except OSError as exc:
            raise self._truncated(f"the connection failed ({exc.strerror or exc})") from None
        if not data:
            raise self._truncated("the connection closed")
        return data

    def _truncated(self, why):
        return RdbTruncatedError(f"snapshot ends early: {why}", self._arrived,
                                 context="the replication stream", path=self.name)

    def _finish(self):
        self._ended = True
        if self._save is not None:
            self._save.close()
            os.replace(self._save.name, self._save_path)
            self._save = None
        self._sock.close()

    def close(self):
        if self._save is not None:  # the payload did not arrive whole: nothing is published
            self._save.close()
            os.unlink(self._save.name)
            self._save = None
        self._sock.close()
        super().close()


def shown_answer(data, limit=SHOWN_ANSWER_BYTES):
    """The first ``limit`` bytes a server sent, quoted, escaped as Python escapes bytes (``"HTTP/1.1 400 Bad
    Request\\r\\n…"``); an ellipsis when there were more."""
    text = repr(bytes(data[:limit]))[2:-1].replace('"', '\\"')
    return f'"{text}{"…" if len(data) > limit else ""}"'


def _error_text(line):
    return line[1:].decode("utf-8", "replace").strip()[:200]
