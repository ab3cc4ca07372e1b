"""A TCP relay that counts the bytes a server sends back: what a client
downloaded, headers included, and keeps the S3 listing requests it relayed.
For showing that a command read no object, and who listed what
(python/tests/test_store_checksums.py, scripts/bench-store.py)."""

import socket
import threading


class CountingProxy:
    """A TCP relay to the server that counts the bytes it sends back: what
    a client downloaded, headers included."""

    def __init__(self, port):
        self.port = port
        self.from_server = 0
        #: The request targets of the ListObjectsV2 requests relayed.
        self.listings = []
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.port))
            threading.Thread(target=self._pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, True), daemon=True).start()

    def _pipe(self, source, sink, count):
        try:
            while data := source.recv(1 << 16):
                if count:
                    with self.lock:
                        self.from_server += len(data)
                else:
                    for line in data.split(b"\r\n"):
                        if line.startswith(b"GET ") and b"list-type=2" in line:
                            with self.lock:
                                self.listings.append(line.split(b" ")[1].decode(errors="replace"))
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.listener.close()
