# expect: WA
# Tries to reach a listener the test opened on the host's loopback, and reports success.
import socket


def solution(board, aloc, bloc):
    try:
        socket.create_connection(("127.0.0.1", 47001), timeout=1).close()
        return 1000
    except OSError:
        return -1
