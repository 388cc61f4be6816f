"""An HTTP/2 server that is not a gNMI server, for the gNMI client's error tests (a test fixture,
not part of qosforge): over plaintext TCP (h2c with prior knowledge, RFC 9113 §3.3) it answers
every request with one HEADERS frame, ``:status`` and no body, as a web server that does not know
the path would. Written from RFC 9113 (frames, §4.1, §6.2, §6.5) and RFC 7541's static table
(Appendix A: index 8 is ``:status 200``, 13 ``:status 404``)."""

from __future__ import annotations

import socket
import struct
import threading

#: RFC 9113 §3.4: what every client sends first.
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, SETTINGS = 0x1, 0x4
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
#: RFC 7541 Appendix A indices, sent as indexed header fields (§6.1: 0x80 | index).
STATUS_INDEX = {200: 8, 404: 13}


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    length = struct.pack(">I", len(payload))[1:]  # 24 bits (RFC 9113 §4.1)
    return length + bytes([kind, flags]) + struct.pack(">I", stream) + payload


class Http2Responder:
    """Listens on 127.0.0.1:``port`` (0: any free port) until :meth:`close`."""

    def __init__(self, status: int = 404) -> None:
        self.status = status
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            try:
                if self._read(connection, len(PREFACE)) != PREFACE:
                    return
                connection.sendall(_frame(SETTINGS, 0, 0))
                while True:
                    header = self._read(connection, 9)
                    length = int.from_bytes(header[:3], "big")
                    kind, flags = header[3], header[4]
                    stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
                    self._read(connection, length)
                    if kind == SETTINGS and not flags & ACK:
                        connection.sendall(_frame(SETTINGS, ACK, 0))
                    elif kind == HEADERS:
                        block = bytes([0x80 | STATUS_INDEX[self.status]])
                        connection.sendall(_frame(HEADERS, END_HEADERS | END_STREAM, stream, block))
            except OSError:
                return

    @staticmethod
    def _read(connection: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = connection.recv(size - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
